// The summarizer factory (D16: remote / OpenAI-compatible / offline, API key resolution) and the
// retry policy end to end: real summarizers against the fake server as candidates.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Summarizer, SummaryRequest } from "../../../core/compaction/types.ts";
import { DEFAULT_SETTINGS, type Settings } from "../../../core/settings/schema.ts";
import {
  type Candidate,
  createModelSummarizer,
  createSummarizer,
  orderCandidateModels,
  resolveApiKey,
  runWithCandidates,
} from "../../../main/llm/index.ts";
import { type FakeServer, start } from "../../helpers/fake-openai-server.ts";

let server: FakeServer;
beforeEach(async () => {
  server = await start();
});
afterEach(async () => {
  await server.close();
});

const offline: Summarizer = {
  kind: "offline",
  label: "offline",
  contextWindow: 0,
  summarize: async () => ({ text: "offline summary", stopReason: "stop" }),
};

const request: SummaryRequest = {
  purpose: "history",
  systemPrompt: "S",
  prompt: "P",
  maxTokens: 10,
  messages: [],
};

describe("createSummarizer", () => {
  it("offline when no model is configured", () => {
    expect(createSummarizer({ model: null }, { offline }).kind).toBe("offline");
    expect(createSummarizer({}, { offline: () => offline })).toBe(offline);
    const builtIn = createSummarizer({ model: null });
    expect(builtIn.kind).toBe("offline");
    expect(builtIn).not.toBe(offline);
  });

  it("accepts Canopy's settings object as it is", () => {
    expect(createSummarizer(DEFAULT_SETTINGS).kind).toBe("offline");
    const settings: Settings = {
      ...DEFAULT_SETTINGS,
      model: {
        baseUrl: server.baseUrl,
        id: "m",
        contextWindow: 8192,
        apiKeyEnv: "OPENAI_API_KEY",
        stream: true,
        reasoning: false,
      },
    };
    expect(createSummarizer(settings, { env: {} }).kind).toBe("openai");
  });

  it("openai when a model is configured, with the key from the environment", async () => {
    const settings = {
      model: { baseUrl: server.baseUrl, id: "fake-model", contextWindow: 32_000, apiKeyEnv: "MY_KEY" },
    };
    const backend = createSummarizer(settings, {
      offline,
      env: { MY_KEY: "sk-mine", OPENAI_API_KEY: "sk-openai" },
    });
    expect(backend.kind).toBe("openai");
    expect(backend.contextWindow).toBe(32_000);
    expect(backend.label).toBe(`fake-model at ${server.baseUrl}`);
    expect(await backend.summarize(request)).toEqual({ text: "Fake summary.", stopReason: "stop" });
    expect(server.requests[0]?.headers.authorization).toBe("Bearer sk-mine");
  });

  it("remote for the main summary when an endpoint is set; the model summarizer stays the model", async () => {
    const settings = {
      compaction: { remoteEndpoint: `${server.url}/remote` },
      model: { baseUrl: server.baseUrl, id: "fake-model", contextWindow: 32_000 },
    };
    const main = createSummarizer(settings, { offline });
    expect(main.kind).toBe("remote");
    expect(await main.summarize(request)).toEqual({ text: "Remote summary.", stopReason: "stop" });
    expect(createModelSummarizer(settings, { offline }).kind).toBe("openai");
    expect(createSummarizer({ compaction: { remoteEndpoint: null } }, { offline }).kind).toBe("offline");
  });

  it("resolves the API key: explicit, apiKeyEnv, CANOPY_API_KEY, OPENAI_API_KEY", () => {
    const model = { baseUrl: "http://127.0.0.1:1/v1", id: "m", contextWindow: 1, apiKeyEnv: "MINE" };
    const env = { MINE: "mine", CANOPY_API_KEY: "canopy", OPENAI_API_KEY: "openai" };
    expect(resolveApiKey(model, { apiKey: "explicit", env })).toBe("explicit");
    expect(resolveApiKey(model, { env })).toBe("mine");
    expect(resolveApiKey(model, { env: { ...env, MINE: " " } })).toBe("canopy");
    expect(resolveApiKey({ ...model, apiKeyEnv: undefined }, { env: { OPENAI_API_KEY: "openai" } })).toBe(
      "openai",
    );
    expect(resolveApiKey(model, { env: {} })).toBeUndefined();
  });
});

describe("retry policy over real HTTP", () => {
  /** Candidates from model settings: a summarizer per model; an error response becomes a throw. */
  function candidates(models: { baseUrl: string; id: string; contextWindow: number }[]): Candidate<string>[] {
    return orderCandidateModels(models[0], models.slice(1)).map((model) => {
      const backend = createModelSummarizer({ model }, { offline });
      return {
        id: model.id,
        run: async (signal) => {
          const response = await backend.summarize({ ...request, signal });
          if (response.stopReason === "error") throw new Error(response.errorMessage ?? "Unknown error");
          return response.text;
        },
      };
    });
  }

  it("a 429 with retry-after-ms is retried after the hinted delay, then succeeds", async () => {
    server.enqueue(
      {
        type: "error",
        status: 429,
        body: { error: { message: "Rate limit" } },
        headers: { "retry-after-ms": "5000" },
      },
      { type: "reply", text: "second time lucky" },
    );
    const sleeps: number[] = [];
    const list = candidates([{ baseUrl: server.baseUrl, id: "fake-model", contextWindow: 1 }]);
    const result = await runWithCandidates(
      list,
      { enabled: true, maxRetries: 3, baseDelayMs: 2000 },
      new AbortController().signal,
      {
        sleep: async (ms) => {
          sleeps.push(ms);
        },
      },
    );
    expect(result).toBe("second time lucky");
    expect(sleeps).toEqual([5000]);
    expect(server.requests).toHaveLength(2);
  });

  it("a 400 moves to the fallback model", async () => {
    server.enqueue(
      { type: "error", status: 400, body: { error: { message: "model not supported" } } },
      { type: "reply", text: "fallback answer" },
    );
    const list = candidates([
      { baseUrl: server.baseUrl, id: "primary", contextWindow: 1 },
      { baseUrl: server.baseUrl, id: "primary", contextWindow: 2 },
      { baseUrl: server.baseUrl, id: "fallback", contextWindow: 1 },
    ]);
    expect(list.map((c) => c.id)).toEqual(["primary", "fallback"]);
    const result = await runWithCandidates(
      list,
      { enabled: true, maxRetries: 3, baseDelayMs: 1 },
      new AbortController().signal,
    );
    expect(result).toBe("fallback answer");
    expect(server.requests.map((r) => (r.body as { model: string }).model)).toEqual(["primary", "fallback"]);
  });
});
