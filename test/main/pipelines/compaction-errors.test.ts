// Endpoint failures during manual compaction (400, 413, 429, 500, context overflow, a failing
// short summary): model_error with the status and text, and nothing appended.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type FakeBehaviour, type FakeServer, OVERFLOW_ERRORS } from "../../helpers/fake-openai-server.ts";
import { chatRequests, closeServedHarness, type Harness, startServedHarness } from "./harness.ts";
import { plainSession } from "./sessions.ts";

let server: FakeServer;
let h: Harness;
let sessionId: string;

beforeEach(async () => {
  ({ server, h } = await startServedHarness({ model: true, keepRecentTokens: 1500 }));
  sessionId = await h.importSession(plainSession());
});

afterEach(() => closeServedHarness({ server, h }));

const cases: { name: string; behaviour: FakeBehaviour; expected: string[] }[] = [
  {
    name: "400 bad request",
    behaviour: {
      type: "error",
      status: 400,
      body: { error: { message: "Unsupported parameter: max_tokens", type: "invalid_request_error" } },
    },
    expected: ["400", "Unsupported parameter: max_tokens"],
  },
  {
    name: "413 payload too large (plain-text body)",
    behaviour: { type: "error", status: 413, body: "Request Entity Too Large" },
    expected: ["413", "Request Entity Too Large"],
  },
  {
    name: "429 rate limited (no retry in manual compaction)",
    behaviour: {
      type: "error",
      status: 429,
      body: { error: { message: "Rate limit reached for fake-model", type: "rate_limit_error" } },
      headers: { "retry-after": "7" },
    },
    expected: ["429", "Rate limit reached for fake-model"],
  },
  {
    name: "500 server error",
    behaviour: {
      type: "error",
      status: 500,
      body: { error: { message: "The server had an error", type: "server_error" } },
    },
    expected: ["500", "The server had an error"],
  },
  {
    name: "context overflow",
    behaviour: {
      type: "error",
      status: 400,
      body: {
        error: {
          message: OVERFLOW_ERRORS.openai,
          type: "invalid_request_error",
          code: "context_length_exceeded",
        },
      },
    },
    expected: ["400", OVERFLOW_ERRORS.openai],
  },
];

describe("endpoint errors", () => {
  for (const { name, behaviour, expected } of cases) {
    it(`${name} → model_error, nothing appended`, async () => {
      const before = await h.snapshot(sessionId);
      server.enqueue(behaviour);
      const error = await h.fail("compaction:run", { sessionId });
      expect(error.code).toBe("model_error");
      for (const text of expected) expect(error.message).toContain(text);
      expect(error.message).not.toContain("\n");
      // The history call failed: no short summary was attempted, and nothing was retried.
      expect(chatRequests(server)).toHaveLength(1);
      expect(await h.snapshot(sessionId)).toEqual(before);
      const view = await h.call("context:get", { sessionId });
      expect(view.compactionId).toBeNull();
    });
  }

  it("a failing short summary fails the whole compaction", async () => {
    const before = await h.snapshot(sessionId);
    server.enqueue(
      { type: "reply", text: "History." },
      { type: "error", status: 503, body: { error: { message: "Service overloaded" } } },
    );
    const error = await h.fail("compaction:run", { sessionId });
    expect(error.code).toBe("model_error");
    expect(error.message).toContain("Short summary failed");
    expect(error.message).toContain("503");
    expect(chatRequests(server)).toHaveLength(2);
    expect(await h.snapshot(sessionId)).toEqual(before);
  });

  it("an empty reply is an error, not an empty summary", async () => {
    const before = await h.snapshot(sessionId);
    server.enqueue({ type: "reply", text: "" });
    const error = await h.fail("compaction:run", { sessionId });
    expect(error.code).toBe("model_error");
    expect(error.message).toContain("Summarization failed");
    expect(await h.snapshot(sessionId)).toEqual(before);
  });

  // A blank summary would replace the history with nothing, as an empty one would.
  const blanks: [string, FakeBehaviour, boolean][] = [
    ["a reply of blanks only", { type: "reply", text: " \n\n  \t" }, false],
    ["a streamed reply of blanks only", { type: "reply", chunks: ["  ", "\n", "\n "] }, true],
    ["an empty reply cut at the output limit", { type: "reply", text: "", finishReason: "length" }, false],
    ["an empty stream cut at the output limit", { type: "reply", text: "", finishReason: "length" }, true],
  ];
  for (const [name, behaviour, stream] of blanks) {
    it(`${name} is an error, not a blank summary`, async () => {
      await h.configureFakeModel(server, { stream });
      const before = await h.snapshot(sessionId);
      server.enqueue(behaviour, behaviour);
      const error = await h.fail("compaction:run", { sessionId });
      expect(error.code).toBe("model_error");
      expect(error.message).toContain("Model returned an empty reply");
      if (behaviour.type === "reply" && behaviour.finishReason === "length") expect(error.message).toContain("the output limit was reached");
      expect(await h.snapshot(sessionId)).toEqual(before);
    });
  }

  it("a proxy's HTML error page is told by its title, on one line", async () => {
    const nginx =
      "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx/1.18.0</center>\r\n</body>\r\n</html>\r\n";
    server.enqueue({ type: "error", status: 502, body: nginx, headers: { "content-type": "text/html" } });
    const error = await h.fail("compaction:run", { sessionId });
    expect(error).toEqual({ code: "model_error", message: "Summarization failed: 502 Bad Gateway" });
    const untitled = "<!DOCTYPE html>\n<html><body>\n<h1>Service   Unavailable</h1>\n<p>Try later.</p></body></html>";
    server.enqueue({ type: "error", status: 503, body: untitled, headers: { "content-type": "text/html" } });
    const bare = await h.fail("compaction:run", { sessionId });
    expect(bare.message).toBe("Summarization failed: 503 Service Unavailable Try later.");
  });

  it("a refused key (401) says where Canopy looked for it, set or not", async () => {
    const refused = { type: "error" as const, status: 401, body: { error: { message: "Invalid API key" } } };
    server.enqueue(refused);
    const wrong = await h.fail("compaction:run", { sessionId });
    expect(wrong.message).toBe(
      "Summarization failed: 401 Invalid API key — check the API key found under FAKE_KEY",
    );
    const model = (await h.call("settings:get", {})).model;
    await h.call("settings:set", { key: "model", value: { ...model, apiKeyEnv: "CANOPY_TEST_UNSET_KEY" } });
    const before = await h.snapshot(sessionId);
    server.enqueue(refused);
    const missing = await h.fail("compaction:run", { sessionId });
    expect(missing.code).toBe("model_error");
    expect(missing.message).toBe(
      "Summarization failed: 401 Invalid API key — no API key found: set the environment variable CANOPY_TEST_UNSET_KEY before starting Canopy",
    );
    expect(await h.snapshot(sessionId)).toEqual(before);
  });

  it("a stream cut off mid-summary is a connection error, not a truncated summary", async () => {
    await h.configureFakeModel(server, { stream: true });
    const before = await h.snapshot(sessionId);
    server.enqueue({ type: "reply", chunks: ["## Goal", "\nFix", " the parser."], dropAfterChunks: 2 });
    const error = await h.fail("compaction:run", { sessionId });
    expect(error.code).toBe("model_error");
    expect(error.message).toContain("Connection error");
    expect(await h.snapshot(sessionId)).toEqual(before);
  });

  it("after a failure the session is free again: the next run succeeds", async () => {
    server.enqueue({ type: "error", status: 500, body: { error: { message: "boom" } } });
    expect((await h.fail("compaction:run", { sessionId })).code).toBe("model_error");
    server.enqueue({ type: "reply", text: "History." }, { type: "reply", text: "Short." });
    const result = await h.call("compaction:run", { sessionId });
    expect(result.shortSummary).toBe("Short.");
    expect((await h.snapshot(sessionId)).viewLeafId).toBe(result.entryId);
  });

  it("an unreachable endpoint is a model_error naming the connection failure", async () => {
    await h.call("settings:set", {
      key: "model",
      value: {
        baseUrl: "http://127.0.0.1:9/v1",
        id: "fake-model",
        contextWindow: 200000,
        apiKeyEnv: "FAKE_KEY",
        stream: false,
      },
    });
    const before = await h.snapshot(sessionId);
    const error = await h.fail("compaction:run", { sessionId });
    expect(error.code).toBe("model_error");
    expect(error.message).toMatch(/Connection error/);
    expect(await h.snapshot(sessionId)).toEqual(before);
  });
});
