// Remote compaction endpoint (SPEC §6.3 step 5) over real HTTP: body shape, header, the spec's
// error texts, the ignored shortSummary, aborts and timeouts; the Test connection probe.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { SummaryRequest } from "../../../core/compaction/types.ts";
import { createRemoteSummarizer, DEFAULT_REMOTE_TIMEOUT_MS, probeRemoteEndpoint } from "../../../main/llm/remote.ts";
import { type FakeServer, start } from "../../helpers/fake-openai-server.ts";

let server: FakeServer;
beforeEach(async () => {
  server = await start();
});
afterEach(async () => {
  await server.close();
});

const request = (overrides: Partial<SummaryRequest> = {}): SummaryRequest => ({
  purpose: "history",
  systemPrompt: "SYSTEM",
  prompt: "<conversation>\n[User]: hi\n</conversation>\n\nSummarize.",
  maxTokens: 100,
  messages: [],
  ...overrides,
});

describe("createRemoteSummarizer", () => {
  it("POSTs {systemPrompt, prompt} as JSON and returns summary, ignoring shortSummary", async () => {
    server.enqueue({ type: "remote", payload: { summary: "The summary.", shortSummary: "ignored" } });
    const backend = createRemoteSummarizer({ endpoint: `${server.url}/remote` });
    expect(backend.kind).toBe("remote");
    expect(await backend.summarize(request())).toEqual({ text: "The summary.", stopReason: "stop" });
    const sent = server.requests[0];
    expect(sent?.method).toBe("POST");
    expect(sent?.path).toBe("/remote");
    expect(sent?.headers["content-type"]).toBe("application/json");
    expect(sent?.body).toEqual({
      systemPrompt: "SYSTEM",
      prompt: "<conversation>\n[User]: hi\n</conversation>\n\nSummarize.",
    });
  });

  it("non-2xx → Remote compaction failed (<status> <statusText>)", async () => {
    server.enqueue(
      { type: "error", route: "remote", status: 503, body: "busy" },
      { type: "error", route: "remote", status: 404, body: { error: "nope" } },
    );
    const backend = createRemoteSummarizer({ endpoint: `${server.url}/remote` });
    expect(await backend.summarize(request())).toEqual({
      text: "",
      stopReason: "error",
      errorMessage: "Remote compaction failed (503 Service Unavailable)",
    });
    expect((await backend.summarize(request())).errorMessage).toBe(
      "Remote compaction failed (404 Not Found)",
    );
  });

  it.each([
    ["no summary", {}],
    ["non-string summary", { summary: 42 }],
    ["null payload", null],
  ])("%s → Remote compaction response missing summary", async (_name, payload) => {
    server.enqueue({ type: "remote", payload });
    const result = await createRemoteSummarizer({ endpoint: `${server.url}/remote` }).summarize(request());
    expect(result).toEqual({
      text: "",
      stopReason: "error",
      errorMessage: "Remote compaction response missing summary",
    });
  });

  it.each([
    ["empty summary", { summary: "" }],
    ["whitespace-only summary", { summary: "  \n\t " }],
  ])("%s → an error, not a compaction that replaces the history with nothing", async (_name, payload) => {
    server.enqueue({ type: "remote", payload });
    const result = await createRemoteSummarizer({ endpoint: `${server.url}/remote` }).summarize(request());
    expect(result).toEqual({
      text: "",
      stopReason: "error",
      errorMessage: "Remote compaction response has an empty summary",
    });
  });

  it("a body that is not JSON is an error", async () => {
    server.enqueue({ type: "malformed", route: "remote" });
    const result = await createRemoteSummarizer({ endpoint: `${server.url}/remote` }).summarize(request());
    expect(result.errorMessage).toBe("Remote compaction response is not valid JSON");
  });

  it("abort reaches the request and resolves aborted", async () => {
    server.enqueue({ type: "remote", payload: { summary: "late" }, headersDelayMs: 10_000 });
    const controller = new AbortController();
    const pending = createRemoteSummarizer({ endpoint: `${server.url}/remote` }).summarize(
      request({ signal: controller.signal }),
    );
    await vi.waitFor(() => expect(server.requests).toHaveLength(1));
    controller.abort();
    expect(await pending).toEqual({ text: "", stopReason: "aborted" });
    await vi.waitFor(() => expect(server.requests[0]?.clientClosed).toBe(true));
  });

  it("a timeout is an error, not an abort, naming the setting", async () => {
    server.enqueue({ type: "remote", payload: { summary: "late" }, headersDelayMs: 2000 });
    const result = await createRemoteSummarizer({
      endpoint: `${server.url}/remote`,
      timeoutMs: 100,
    }).summarize(request());
    expect(result).toEqual({
      text: "",
      stopReason: "error",
      errorMessage:
        "Remote compaction failed: Request timed out: the endpoint sent nothing for 0.1 s (setting compaction.remoteTimeoutSeconds)",
    });
  });

  it("an answer whose body stalls times out too, and says it stalled", async () => {
    let cancelled = false;
    const fetchImpl: typeof fetch = async () =>
      new Response(
        new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(new TextEncoder().encode('{"summary": "par'));
          },
          cancel() {
            cancelled = true;
          },
        }),
        { status: 200 },
      );
    const result = await createRemoteSummarizer({ endpoint: "http://127.0.0.1:1/x", fetchImpl, timeoutMs: 100 }).summarize(
      request(),
    );
    expect(result.errorMessage).toBe(
      "Remote compaction failed: Request timed out: the endpoint's answer stalled, nothing more came for 0.1 s (setting compaction.remoteTimeoutSeconds)",
    );
    expect(cancelled).toBe(true);
  });

  it("without a timeout given, waits as long as a model may (10 minutes)", () => {
    expect(DEFAULT_REMOTE_TIMEOUT_MS).toBe(600_000);
  });

  it("network failures name the cause and are retryable text", async () => {
    const endpoint = `${server.url}/remote`;
    await server.close();
    const result = await createRemoteSummarizer({ endpoint }).summarize(request());
    expect(result.errorMessage).toMatch(/^Remote compaction failed: fetch failed \(.*ECONNREFUSED/);
    server = await start();
  });

  it("uses an injected fetch", async () => {
    const calls: string[] = [];
    const fetchImpl: typeof fetch = async (input) => {
      calls.push(String(input));
      return new Response(JSON.stringify({ summary: "injected" }), { status: 200 });
    };
    const result = await createRemoteSummarizer({ endpoint: "http://127.0.0.1:1/x", fetchImpl }).summarize(
      request(),
    );
    expect(result.text).toBe("injected");
    expect(calls).toEqual(["http://127.0.0.1:1/x"]);
  });
});

describe("probeRemoteEndpoint", () => {
  /** A fetch that answers only by failing once its signal aborts, as fetch does. */
  const silentFetch =
    (seen: AbortSignal[]): typeof fetch =>
    (_input, init) =>
      new Promise((_resolve, reject) => {
        const signal = init?.signal as AbortSignal;
        seen.push(signal);
        signal.addEventListener("abort", () => reject(new Error("This operation was aborted")));
      });

  it("an endpoint that answers at all is reachable", async () => {
    const result = await probeRemoteEndpoint(`${server.url}/remote`);
    expect(result.ok).toBe(true);
  });

  it("an endpoint whose server answers with a server error (a proxy's 502) is not reported as reachable", async () => {
    const answering =
      (status: number): typeof fetch =>
      async () =>
        new Response(status === 200 ? "ok" : "<html><title>502 Bad Gateway</title></html>", {
          status,
          statusText: status === 200 ? "OK" : "Bad Gateway",
        });
    expect(await probeRemoteEndpoint("http://127.0.0.1:1/x", 1000, answering(502))).toEqual({
      ok: false,
      message: "Remote summary endpoint answered 502 Bad Gateway: its server is failing",
    });
    // Not found or not allowed for HEAD: a POST-only route says so, and it answers.
    expect((await probeRemoteEndpoint("http://127.0.0.1:1/x", 1000, answering(405))).ok).toBe(true);
  });

  it("an endpoint silent for the whole timeout has timed out, and its request is aborted", async () => {
    const seen: AbortSignal[] = [];
    const result = await probeRemoteEndpoint("http://127.0.0.1:1/x", 50, silentFetch(seen));
    expect(result).toEqual({ ok: false, message: "Remote summary endpoint timed out after 50 ms" });
    expect(seen[0]?.aborted).toBe(true);
  });

  it("the caller's abort cancels it, not as a timeout", async () => {
    const seen: AbortSignal[] = [];
    const controller = new AbortController();
    const pending = probeRemoteEndpoint("http://127.0.0.1:1/x", 60_000, silentFetch(seen), controller.signal);
    controller.abort();
    expect(await pending).toEqual({ ok: false, message: "Cancelled" });
    expect(seen[0]?.aborted).toBe(true);
  });
});
