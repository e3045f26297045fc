// Settings through the API as the pipelines use them (SPEC §10.1): defaults, validated writes,
// persistence, salvage of a stale document, reserveTokens → max_tokens, and the connection test
// and its cancellation (the HTTP request is aborted).
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConnectionTests, EARLY_CANCEL_MS } from "../../../main/api/connection-tests.ts";
import { getSetting, setSetting } from "../../../main/store/repos/settings.ts";
import { type FakeServer, start } from "../../helpers/fake-openai-server.ts";
import {
  chatBody,
  chatRequests,
  closeServedHarness,
  createHarness,
  type Harness,
  startServedHarness,
} from "./harness.ts";
import { splitSession } from "./sessions.ts";

let server: FakeServer;
let h: Harness;

beforeEach(async () => {
  ({ server, h } = await startServedHarness());
});

afterEach(() => closeServedHarness({ server, h }));

describe("settings", () => {
  it("defaults of SPEC §10.1 and the offline summarizer", async () => {
    const settings = await h.call("settings:get", {});
    expect(settings.compaction).toEqual({
      enabled: true,
      reserveTokens: 16384,
      keepRecentTokens: 20000,
      autoContinue: true,
      remoteEndpoint: null,
      remoteTimeoutSeconds: 600,
    });
    expect(settings.branchSummary).toEqual({ enabled: false, reserveTokens: 16384 });
    expect(settings.model).toBeNull();
    const connection = await h.call("settings:test-connection", {});
    expect(connection).toMatchObject({ ok: true, model: "offline" });
  });

  it("validated writes: unknown keys, bad values and model keys before a model are refused", async () => {
    const unknown = await h.fail("settings:set", { key: "compaction.nope", value: 1 });
    expect(unknown.code).toBe("invalid_input");
    expect(unknown.message).toMatch(/^unknown setting "compaction\.nope"/);
    expect(await h.fail("settings:set", { key: "compaction.reserveTokens", value: -1 })).toMatchObject({
      code: "invalid_input",
      message: expect.stringMatching(/^compaction\.reserveTokens: /),
    });
    expect(await h.fail("settings:set", { key: "compaction.keepRecentTokens", value: 0 })).toMatchObject({
      code: "invalid_input",
    });
    expect(
      await h.fail("settings:set", { key: "compaction.remoteEndpoint", value: "ftp://x" }),
    ).toMatchObject({
      code: "invalid_input",
    });
    expect((await h.fail("settings:set", { key: "model.stream", value: false })).message).toMatch(
      /no model is configured yet/,
    );
    expect((await h.call("settings:get", {})).compaction.reserveTokens).toBe(16384);
  });

  it("refused values are explained in words, not zod's wording (a cleared number field sends null)", async () => {
    const reason = async (key: string, value: unknown) =>
      (await h.fail("settings:set", { key, value })).message;
    expect(await reason("compaction.reserveTokens", null)).toBe(
      "compaction.reserveTokens: needs a number (it cannot be empty)",
    );
    expect(await reason("retry.baseDelayMs", 1.5)).toBe("retry.baseDelayMs: needs a whole number, not 1.5");
    expect(await reason("retry.maxRetries", 50)).toBe("retry.maxRetries: must be at most 20");
    // Beyond the safe-integer range zod's int check speaks first; the field's own bound is what to say.
    expect(await reason("compaction.reserveTokens", 1e20)).toBe(
      "compaction.reserveTokens: must be at most 10,000,000",
    );
    expect(await reason("compaction.reserveTokens", -1e20)).toBe("compaction.reserveTokens: must be at least 0");
    expect(await reason("compaction.keepRecentTokens", 0)).toBe(
      "compaction.keepRecentTokens: must be at least 1",
    );
    expect(await reason("compaction.enabled", "yes")).toBe(
      'compaction.enabled: needs true or false, not the text "yes"',
    );
    expect(await reason("compaction.remoteEndpoint", "ftp://x")).toBe(
      "compaction.remoteEndpoint: needs an http:// or https:// URL",
    );
    expect(await reason("model", { baseUrl: "http://127.0.0.1:1/v1", id: " " })).toBe(
      "model.id: cannot be empty",
    );
  });

  it("a URL with a user name or password is refused without echoing it (every request to it fails, naming the URL)", async () => {
    const reason = async (key: string, value: unknown) =>
      (await h.fail("settings:set", { key, value })).message;
    const words = "needs a URL without a user name or password: give the API key in the environment variable apiKeyEnv names";
    expect(await reason("compaction.remoteEndpoint", "http://u:sk-SECRET1@127.0.0.1:1/x")).toBe(
      `compaction.remoteEndpoint: ${words}`,
    );
    expect(await reason("model", { baseUrl: "https://sk-SECRET1@api.example.com/v1", id: "m" })).toBe(
      `model.baseUrl: ${words}`,
    );
    await h.call("settings:set", { key: "model", value: { baseUrl: "http://127.0.0.1:1/v1", id: "m" } });
    expect(await reason("model.baseUrl", "http://:sk-SECRET1@127.0.0.1:1/v1")).toBe(`model.baseUrl: ${words}`);
    expect(JSON.stringify(await h.call("settings:get", {}))).not.toContain("SECRET1");
  });

  it("a model with defaults for what is left out; sub-keys afterwards; kept across re-open", async () => {
    const settings = await h.call("settings:set", {
      key: "model",
      value: { baseUrl: server.baseUrl, id: "fake-model" },
    });
    expect(settings.model).toEqual({
      baseUrl: server.baseUrl,
      id: "fake-model",
      contextWindow: 128000,
      apiKeyEnv: "OPENAI_API_KEY",
      stream: true,
      reasoning: false,
    });
    await h.call("settings:set", { key: "model.stream", value: false });
    await h.call("settings:set", { key: "compaction.remoteEndpoint", value: `${server.url}/remote` });
    await h.call("settings:set", { key: "compaction.remoteEndpoint", value: null });
    const dir = h.dir;
    h.close();
    h = createHarness({ dir });
    const reopened = await h.call("settings:get", {});
    expect(reopened.model?.stream).toBe(false);
    expect(reopened.compaction.remoteEndpoint).toBeNull();
  });

  it("a stale stored document keeps every value that still validates", async () => {
    setSetting(h.api.ctx.db, "canopy.settings", {
      compaction: { reserveTokens: 9000, keepRecentTokens: -5, retiredOption: true },
      branchSummary: { reserveTokens: 4000 },
      theme: "dark",
      model: { baseUrl: "not a url", id: "x" },
    });
    const settings = await h.call("settings:get", {});
    expect(settings.compaction.reserveTokens).toBe(9000);
    expect(settings.compaction.keepRecentTokens).toBe(20000);
    expect(settings.branchSummary.reserveTokens).toBe(4000);
    expect(settings.model).toBeNull();
    // The next write stores a clean document.
    await h.call("settings:set", { key: "compaction.autoContinue", value: false });
    expect(getSetting(h.api.ctx.db, "canopy.settings")).toEqual({
      ...settings,
      compaction: { ...settings.compaction, autoContinue: false },
    });
  });

  it("an API key pasted as the key variable's name is refused without echoing it", async () => {
    const reason = async (key: string, value: unknown) =>
      (await h.fail("settings:set", { key, value })).message;
    const words =
      "model.apiKeyEnv: looks like an API key itself, not the name of a variable: give the name of the environment variable that holds the key (as OPENAI_API_KEY)";
    const model = { baseUrl: "http://127.0.0.1:1/v1", id: "m" };
    for (const pasted of ["gsk_8fKq2LmZ0pRt7YwXbN4cVs1eHd9JuAo3", "hf_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456", "f39a1c7e5b2d4f608a1b3c5d7e9f0a2b"]) {
      expect(await reason("model", { ...model, apiKeyEnv: pasted })).toBe(words);
    }
    await h.call("settings:set", { key: "model", value: { ...model, apiKeyEnv: "MY_OPENAI_KEY_2" } });
    await h.call("settings:set", { key: "model.apiKeyEnv", value: "groq_api_key" });
    expect(await reason("model.apiKeyEnv", "gsk_8fKq2LmZ0pRt7YwXbN4cVs1eHd9JuAo3")).toBe(words);
    expect((await h.call("settings:get", {})).model?.apiKeyEnv).toBe("groq_api_key");
  });

  it("a stored model with one stale or invalid sub-key keeps the model and its valid sub-keys", async () => {
    const model = { baseUrl: "http://127.0.0.1:1/v1", id: "kept", contextWindow: 32768, apiKeyEnv: "MY_KEY" };
    setSetting(h.api.ctx.db, "canopy.settings", {
      model: { ...model, timeoutSeconds: 0, retiredOption: "x" },
      fallbackModels: [{ ...model, id: "fallback", stream: "yes" }, { baseUrl: "not a url", id: "gone" }],
    });
    const settings = await h.call("settings:get", {});
    expect(settings.model).toEqual({ ...model, stream: true, reasoning: false });
    expect(settings.fallbackModels).toEqual([{ ...model, id: "fallback", stream: true, reasoning: false }]);
  });

  it("compaction.reserveTokens sets max_tokens of the three calls (×0.8, ×0.5, min(512, ×0.2))", async () => {
    await h.configureFakeModel(server);
    await h.call("settings:set", { key: "compaction.keepRecentTokens", value: 1500 });
    await h.call("settings:set", { key: "compaction.reserveTokens", value: 2000 });
    const sessionId = await h.importSession(splitSession());
    const plan = await h.call("compaction:preview", { sessionId });
    expect(plan.maxSummaryTokens).toBe(1600);
    // What a window compares a settings change with (renderer plan-follow.ts).
    const { model } = await h.call("settings:get", {});
    expect(plan.plannedWith).toEqual({
      keepRecentTokens: 1500,
      reserveTokens: 2000,
      remoteEndpoint: null,
      model: { baseUrl: model?.baseUrl, id: model?.id },
    });
    await h.call("compaction:run", { sessionId });
    const caps = chatRequests(server).map((request) => chatBody(request).max_tokens);
    expect(caps.slice(0, 2).sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual([1000, 1600]);
    expect(caps[2]).toBe(400);
  });

  it("test-connection reaches the configured endpoint with the key from the environment", async () => {
    await h.configureFakeModel(server);
    const connection = await h.call("settings:test-connection", {});
    expect(connection).toMatchObject({ ok: true, model: "fake-model" });
    expect(server.requests[0]?.path).toBe("/v1/models");
    expect(server.requests[0]?.headers.authorization).toBe("Bearer sk-test");
    server.enqueue({
      type: "error",
      route: "models",
      status: 401,
      body: { error: { message: "Invalid API key" } },
    });
    const refused = await h.call("settings:test-connection", {});
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.message).toBe("401 Invalid API key — check the API key found under FAKE_KEY");
  });
  it("test-connection fails when the remote summary endpoint does not answer, with or without a model", async () => {
    const gone = await start();
    const deadEndpoint = `${gone.url}/remote`;
    await gone.close();
    await h.call("settings:set", { key: "compaction.remoteEndpoint", value: deadEndpoint });
    const offline = await h.call("settings:test-connection", {});
    expect(offline.ok).toBe(false);
    if (!offline.ok) expect(offline.message).toMatch(/^Remote summary endpoint unreachable: /);
    await h.configureFakeModel(server);
    const withModel = await h.call("settings:test-connection", {});
    expect(withModel.ok).toBe(false);
    await h.call("settings:set", { key: "compaction.remoteEndpoint", value: `${server.url}/remote` });
    expect(await h.call("settings:test-connection", {})).toMatchObject({ ok: true, model: "fake-model" });
    expect(server.requests.some((request) => request.method === "HEAD" && request.path === "/remote")).toBe(true);
    expect(server.requests.some((request) => request.method === "POST" && request.path === "/remote")).toBe(false);
  });

  it("cancel-test-connection aborts the request to a model endpoint that never answers and says cancelled at once", async () => {
    await h.configureFakeModel(server);
    server.enqueue({ type: "hang", route: "models" });
    const pending = h.fail("settings:test-connection", { testId: "t1" });
    await until(() => server.requests.some((request) => request.path === "/v1/models"), "the model list request");
    const started = performance.now();
    expect(await h.call("settings:cancel-test-connection", { testId: "t1" })).toEqual({ cancelled: true });
    expect(await pending).toEqual({ code: "cancelled", message: "Connection test cancelled" });
    expect(performance.now() - started).toBeLessThan(1000);
    // The server saw the client go away: the request was aborted, not left to time out.
    await until(() => server.requests[0]?.clientClosed === true, "the connection to close");
    expect(server.requests.filter((request) => request.path === "/v1/chat/completions")).toHaveLength(0);
    expect(await h.call("settings:cancel-test-connection", { testId: "t1" })).toEqual({ cancelled: false });
    // The next test runs normally.
    expect(await h.call("settings:test-connection", {})).toMatchObject({ ok: true, model: "fake-model" });
  });

  it("a cancel that overtakes its test wins: the test ends cancelled without asking the model; other ids run on", async () => {
    await h.configureFakeModel(server);
    // Sent in this order on the same tick, as when the cancel's request gets there first.
    const [cancel, test] = await Promise.all([
      h.call("settings:cancel-test-connection", { testId: "overtaken" }),
      h.fail("settings:test-connection", { testId: "overtaken" }),
    ]);
    expect(cancel).toEqual({ cancelled: false });
    expect(test).toEqual({ code: "cancelled", message: "Connection test cancelled" });
    expect(server.requests).toHaveLength(0);
    // The remembered cancel was used up: the same id (and any other) tests normally afterwards.
    expect(await h.call("settings:test-connection", { testId: "overtaken" })).toMatchObject({ ok: true });
    expect(await h.call("settings:test-connection", { testId: "other" })).toMatchObject({ ok: true });
  });

  it("an early cancel is remembered for 10 s only, and at most 100 of them", () => {
    let now = 0;
    const tests = new ConnectionTests(() => now);
    expect(tests.cancel("late")).toBe(false);
    now += EARLY_CANCEL_MS + 1;
    expect(tests.start("late").signal.aborted).toBe(false);
    tests.end("late");
    for (let i = 0; i <= 100; i++) tests.cancel(`id-${i}`);
    expect(tests.start("id-0").signal.aborted).toBe(false);
    expect(tests.start("id-1").signal.aborted).toBe(true);
    expect(tests.start("id-100").signal.aborted).toBe(true);
  });

  it("cancel-test-connection stops only the test it names: another test runs on to its result", async () => {
    await h.configureFakeModel(server);
    // A slow model list: both tests are still waiting for it when one is cancelled.
    server.enqueue(
      { type: "models", ids: ["fake-model"], headersDelayMs: 1500 },
      { type: "models", ids: ["fake-model"], headersDelayMs: 1500 },
    );
    const mine = h.fail("settings:test-connection", { testId: "window-a" });
    const theirs = h.call("settings:test-connection", { testId: "window-b" });
    const modelRequests = () => server.requests.filter((request) => request.path === "/v1/models");
    await until(() => modelRequests().length === 2, "both model list requests");
    expect(await h.call("settings:cancel-test-connection", { testId: "window-a" })).toEqual({ cancelled: true });
    expect(await mine).toEqual({ code: "cancelled", message: "Connection test cancelled" });
    expect(await theirs).toMatchObject({ ok: true, model: "fake-model" });
    // Only the cancelled test's request went away.
    expect(modelRequests().map((request) => request.clientClosed).sort()).toEqual([false, true]);
  });

  it("a test id already running is refused; ids are validated at the edge", async () => {
    await h.configureFakeModel(server);
    server.enqueue({ type: "hang", route: "models" });
    const pending = h.fail("settings:test-connection", { testId: "same" });
    await until(() => server.requests.some((request) => request.path === "/v1/models"), "the model list request");
    expect(await h.fail("settings:test-connection", { testId: "same" })).toEqual({
      code: "conflict",
      message: "A connection test with id same is already running",
    });
    expect(await h.call("settings:cancel-test-connection", { testId: "same" })).toEqual({ cancelled: true });
    expect((await pending).code).toBe("cancelled");
    expect((await h.fail("settings:test-connection", { testId: "no spaces" })).code).toBe("invalid_input");
    expect((await h.fail("settings:cancel-test-connection", {} as { testId: string })).code).toBe("invalid_input");
  });

  it("cancel-test-connection also aborts the probe of a remote summary endpoint that never answers", async () => {
    const seen: IncomingMessage[] = [];
    let closed = 0;
    const silent = createServer((request) => {
      seen.push(request);
      request.socket.on("close", () => {
        closed += 1;
      });
    });
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = silent.address() as AddressInfo;
      await h.call("settings:set", { key: "compaction.remoteEndpoint", value: `http://127.0.0.1:${port}/remote` });
      const pending = h.fail("settings:test-connection", { testId: "remote-1" });
      await until(() => seen.length === 1, "the HEAD request");
      expect(seen[0]?.method).toBe("HEAD");
      const started = performance.now();
      expect(await h.call("settings:cancel-test-connection", { testId: "remote-1" })).toEqual({ cancelled: true });
      expect(await pending).toEqual({ code: "cancelled", message: "Connection test cancelled" });
      // At once, not when the probe's 15 s timeout would have ended it.
      expect(performance.now() - started).toBeLessThan(1000);
      await until(() => closed === 1, "the connection to close");
    } finally {
      silent.closeAllConnections();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });
});

async function until(check: () => boolean, what: string, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
