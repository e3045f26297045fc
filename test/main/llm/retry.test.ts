// Retry policy (SPEC §9.4 step 4): hint grammar, the retryable list, backoff, the candidate loop
// with an injected sleep, and candidate ordering (D17).
import { describe, expect, it } from "vitest";
import {
  abortableSleep,
  type Candidate,
  isAbortError,
  isRetryableError,
  orderCandidateModels,
  parseRetryAfterHint,
  type RetryHooks,
  retryDelay,
  runWithCandidates,
} from "../../../main/llm/retry.ts";

const NOW = Date.parse("2026-12-01T12:00:00Z");

describe("parseRetryAfterHint", () => {
  it.each<[string, number | undefined]>([
    ["429 Rate limit (retry-after-ms=2500)", 2500],
    ["retry-after-ms: 1200.5", 1200.5],
    ["Retry-After-Ms=0", 0],
    ["429 (retry-after=3)", 3000],
    ["retry-after: 1.5 seconds", 1500],
    ["Retry-After: Tue, 01 Dec 2026 12:00:45 GMT", 45_000],
    ["retry-after=Tuesday, 01-Dec-26 12:00:10 GMT", 10_000],
    ["retry-after=Tue Dec  1 12:01:00 2026", 60_000],
    ["retry-after=Tue, 01 Dec 2026 11:00:00 GMT (in the past)", 0],
    ["retry-after=soon", undefined],
    ["retry-after=soon, x-ratelimit-reset=7", 7000],
    ["retry-after-ms=100, retry-after=9", 100],
    ["retry-after=9, retry-after-ms=100", 100],
    ["x-ratelimit-reset-ms=4000", 4000],
    [`x-ratelimit-reset-ms=${NOW + 12_000}`, 12_000],
    [`x-ratelimit-reset-ms=${NOW - 12_000}`, 0],
    ["x-ratelimit-reset=20", 20_000],
    [`x-ratelimit-reset=${NOW / 1000 + 90}`, 90_000],
    [`x-ratelimit-reset: ${NOW / 1000 - 90}`, 0],
    ["x-ratelimit-reset-ms=10, x-ratelimit-reset=20", 10],
    ["429 Too Many Requests", undefined],
    ["", undefined],
  ])("%j → %s", (text, expected) => {
    expect(parseRetryAfterHint(text, NOW)).toBe(expected);
  });
});

describe("isRetryableError / retryDelay", () => {
  it.each([
    "Overloaded",
    "rate limit",
    "Rate-limit reached",
    "ratelimit",
    "usage limit reached",
    "Too Many Requests",
    "429",
    "500 internal",
    "502 Bad Gateway",
    "503",
    "504 Gateway Timeout",
    "Service Unavailable",
    "service_unavailable",
    "server error",
    "Internal error",
    "Connection error: fetch failed",
    "connection-error",
    "fetch failed",
    "retry delay exceeded",
  ])("retryable: %s", (text) => expect(isRetryableError(text)).toBe(true));

  it.each(["400 prompt is too long", "401 Incorrect API key", "Remote compaction response missing summary"])(
    "not retryable: %s",
    (text) => expect(isRetryableError(text)).toBe(false),
  );

  it("doubles per attempt and honours a larger hint", () => {
    expect([0, 1, 2, 3].map((attempt) => retryDelay(attempt, 2000))).toEqual([2000, 4000, 8000, 16000]);
    expect(retryDelay(1, 2000, 10_000)).toBe(10_000);
    expect(retryDelay(2, 2000, 100)).toBe(8000);
  });
});

/** A candidate that plays a script: an Error to throw, or a value to return. */
function scripted(id: string, script: (Error | string)[]): Candidate<string> & { calls: number } {
  const candidate = {
    id,
    calls: 0,
    async run() {
      const step = script[candidate.calls] ?? new Error(`${id}: script exhausted`);
      candidate.calls += 1;
      if (step instanceof Error) throw step;
      return step;
    },
  };
  return candidate;
}

function recorder() {
  const events: string[] = [];
  const sleeps: number[] = [];
  const hooks: RetryHooks = {
    onRetryStart: (e) => events.push(`start ${e.attempt}/${e.maxAttempts} ${e.delayMs} ${e.errorMessage}`),
    onRetryEnd: (e) => events.push(`end ${e.success} ${e.attempt}${e.finalError ? ` ${e.finalError}` : ""}`),
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    now: () => NOW,
  };
  return { events, sleeps, hooks };
}

const policy = { enabled: true, maxRetries: 3, baseDelayMs: 2000 };

describe("runWithCandidates", () => {
  it("retries a 429 on the same candidate, then succeeds", async () => {
    const a = scripted("a", [new Error("429 Rate limit reached"), new Error("503 busy"), "summary"]);
    const { events, sleeps, hooks } = recorder();
    expect(await runWithCandidates([a], policy, new AbortController().signal, hooks)).toBe("summary");
    expect(a.calls).toBe(3);
    expect(sleeps).toEqual([2000, 4000]);
    expect(events).toEqual([
      "start 1/3 2000 429 Rate limit reached",
      "start 2/3 4000 503 busy",
      "end true 2",
    ]);
  });

  it("a hint makes any error retryable and sets the delay", async () => {
    const a = scripted("a", [new Error("quota (retry-after-ms=7000)"), "ok"]);
    const { sleeps, hooks } = recorder();
    expect(await runWithCandidates([a], policy, new AbortController().signal, hooks)).toBe("ok");
    expect(sleeps).toEqual([7000]);
  });

  it("a non-retryable 400 moves to the next candidate at once", async () => {
    const a = scripted("a", [new Error("400 invalid model")]);
    const b = scripted("b", ["from b"]);
    const { sleeps, events, hooks } = recorder();
    expect(await runWithCandidates([a, b], policy, new AbortController().signal, hooks)).toBe("from b");
    expect([a.calls, b.calls, sleeps.length, events.length]).toEqual([1, 1, 0, 0]);
  });

  it("stops retrying after maxRetries and throws the last error when all candidates fail", async () => {
    const a = scripted("a", [
      new Error("500 a1"),
      new Error("500 a2"),
      new Error("500 a3"),
      new Error("500 a4"),
    ]);
    const b = scripted("b", [new Error("401 bad key")]);
    const { events, hooks } = recorder();
    await expect(runWithCandidates([a, b], policy, new AbortController().signal, hooks)).rejects.toThrow(
      "401 bad key",
    );
    expect([a.calls, b.calls]).toEqual([4, 1]);
    expect(events.at(-1)).toBe("end false 3 500 a4");
  });

  it("no candidates → Compaction failed: no available model", async () => {
    await expect(runWithCandidates([], policy, new AbortController().signal)).rejects.toThrow(
      "Compaction failed: no available model",
    );
  });

  it("retries disabled → one attempt per candidate", async () => {
    const a = scripted("a", [new Error("429")]);
    const { sleeps, hooks } = recorder();
    await expect(
      runWithCandidates([a], { ...policy, enabled: false }, new AbortController().signal, hooks),
    ).rejects.toThrow("429");
    expect([a.calls, sleeps.length]).toEqual([1, 0]);
  });

  it("a hint above 30 s switches candidate when another exists, else waits", async () => {
    const a = scripted("a", [new Error("429 (retry-after=60)")]);
    const b = scripted("b", ["from b"]);
    const first = recorder();
    expect(await runWithCandidates([a, b], policy, new AbortController().signal, first.hooks)).toBe("from b");
    expect(first.sleeps).toEqual([]);

    const last = scripted("last", [new Error("429 (retry-after=60)"), "waited"]);
    const second = recorder();
    expect(await runWithCandidates([last], policy, new AbortController().signal, second.hooks)).toBe(
      "waited",
    );
    expect(second.sleeps).toEqual([60_000]);
  });

  it("backoff past 30 s switches too", async () => {
    const a = scripted("a", [new Error("503"), new Error("503"), new Error("503")]);
    const b = scripted("b", ["b"]);
    const { sleeps, hooks } = recorder();
    const slow = { enabled: true, maxRetries: 5, baseDelayMs: 10_000 };
    expect(await runWithCandidates([a, b], slow, new AbortController().signal, hooks)).toBe("b");
    expect(sleeps).toEqual([10_000, 20_000]);
    expect(a.calls).toBe(3);
  });

  it("an abort during the wait rejects with an AbortError and tries nothing else", async () => {
    const controller = new AbortController();
    const a = scripted("a", [new Error("429"), "never"]);
    const b = scripted("b", ["never"]);
    const events: string[] = [];
    const pending = runWithCandidates([a, b], { ...policy, baseDelayMs: 10_000 }, controller.signal, {
      onRetryEnd: (e) => events.push(`end ${e.success} ${e.finalError}`),
    });
    setTimeout(() => controller.abort(), 20);
    const started = Date.now();
    const failure = await pending.catch((error: unknown) => error);
    expect(isAbortError(failure)).toBe(true);
    expect(Date.now() - started).toBeLessThan(2000);
    expect([a.calls, b.calls]).toEqual([1, 0]);
    expect(events).toEqual(["end false Retry cancelled"]);
  });

  it("an abort during a run re-throws at once instead of trying the next candidate", async () => {
    const controller = new AbortController();
    const a: Candidate<string> = {
      id: "a",
      run: async () => {
        controller.abort();
        throw new Error("Request was aborted.");
      },
    };
    const b = scripted("b", ["never"]);
    const failure = await runWithCandidates([a, b], policy, controller.signal).catch(
      (error: unknown) => error,
    );
    expect(isAbortError(failure)).toBe(true);
    expect(b.calls).toBe(0);
  });

  it("abortableSleep resolves after the delay and rejects on abort", async () => {
    await expect(abortableSleep(5, new AbortController().signal)).resolves.toBeUndefined();
    const controller = new AbortController();
    controller.abort();
    await expect(abortableSleep(5, controller.signal)).rejects.toMatchObject({ name: "AbortError" });
  });
});

describe("orderCandidateModels", () => {
  const model = (baseUrl: string, id: string, contextWindow = 1000) => ({ baseUrl, id, contextWindow });

  it("current first, then fallbacks, de-duplicated by baseUrl|id", () => {
    const current = model("http://127.0.0.1:11434/v1", "llama");
    const ordered = orderCandidateModels(current, [
      model("http://127.0.0.1:11434/v1/", "llama", 2),
      model("https://api.openai.com/v1", "gpt-4o-mini"),
      model("http://127.0.0.1:11434/v1", "qwen"),
      model("https://api.openai.com/v1", "gpt-4o-mini", 3),
    ]);
    expect(ordered.map((m) => `${m.baseUrl} ${m.id}`)).toEqual([
      "http://127.0.0.1:11434/v1 llama",
      "https://api.openai.com/v1 gpt-4o-mini",
      "http://127.0.0.1:11434/v1 qwen",
    ]);
  });

  it("no current model → the fallbacks", () => {
    expect(orderCandidateModels(null, [model("http://a/v1", "x")]).map((m) => m.id)).toEqual(["x"]);
    expect(orderCandidateModels(undefined, [])).toEqual([]);
  });
});
