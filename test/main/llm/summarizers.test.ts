// Choosing summarizers from the settings (D16: remote / OpenAI-compatible / offline, API key from
// the model's environment variable) and the retry policy end to end with real summarizers.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SummaryRequest } from "../../../core/compaction/types.ts";
import { DEFAULT_SETTINGS, type Settings } from "../../../core/settings/schema.ts";
import { type Candidate, orderCandidateModels, runWithCandidates } from "../../../main/llm/retry.ts";
import { apiKeyFor, modelSummarizer, summarizersFor } from "../../../main/pipelines/summarizers.ts";
import { createEnvSecretStore } from "../../../main/secrets.ts";
import { type FakeServer, start } from "../../helpers/fake-openai-server.ts";

let server: FakeServer;
beforeEach(async () => {
  server = await start();
});
afterEach(async () => {
  await server.close();
});

const request: SummaryRequest = {
  purpose: "history",
  systemPrompt: "S",
  prompt: "P",
  maxTokens: 10,
  messages: [],
};

function settingsWith(model: Partial<NonNullable<Settings["model"]>> | null, remoteEndpoint: string | null = null): Settings {
  return {
    ...DEFAULT_SETTINGS,
    compaction: { ...DEFAULT_SETTINGS.compaction, remoteEndpoint },
    model:
      model === null
        ? null
        : {
            baseUrl: server.baseUrl,
            id: "fake-model",
            contextWindow: 32_000,
            apiKeyEnv: "MY_KEY",
            stream: false,
            reasoning: false,
            ...model,
          },
  };
}

describe("summarizersFor", () => {
  it("offline when no model is configured", () => {
    const set = summarizersFor(DEFAULT_SETTINGS, createEnvSecretStore({}));
    expect(set.model.kind).toBe("offline");
    expect(set.remote).toBeUndefined();
    expect(set.describe).toBe(set.model.label);
  });

  it("openai when a model is configured, with the key from the model's environment variable", async () => {
    const set = summarizersFor(settingsWith({}), createEnvSecretStore({ MY_KEY: "sk-mine", OPENAI_API_KEY: "sk-openai" }));
    expect(set.model.kind).toBe("openai");
    expect(set.model.contextWindow).toBe(32_000);
    expect(set.model.label).toBe(`fake-model at ${server.baseUrl}`);
    expect(await set.model.summarize(request)).toEqual({ text: "Fake summary.", stopReason: "stop" });
    expect(server.requests[0]?.headers.authorization).toBe("Bearer sk-mine");
  });

  it("remote for the main summary when an endpoint is set; the model summarizer stays the model", async () => {
    const set = summarizersFor(settingsWith({}, `${server.url}/remote`), createEnvSecretStore({}));
    expect(set.remote?.kind).toBe("remote");
    expect(await set.remote?.summarize(request)).toEqual({ text: "Remote summary.", stopReason: "stop" });
    expect(set.model.kind).toBe("openai");
    expect(set.describe).toContain(`remote: ${server.url}/remote`);
  });

  it("reads the API key only from the variable the model names (no other key leaks to its endpoint)", () => {
    const model = settingsWith({}).model as NonNullable<Settings["model"]>;
    expect(apiKeyFor(model, createEnvSecretStore({ MY_KEY: " mine " }))).toBe("mine");
    expect(apiKeyFor(model, createEnvSecretStore({ MY_KEY: " ", CANOPY_API_KEY: "canopy", OPENAI_API_KEY: "openai" }))).toBeUndefined();
    expect(apiKeyFor(model, createEnvSecretStore({}))).toBeUndefined();
  });
});

describe("retry policy over real HTTP", () => {
  /** Candidates from model settings: a summarizer per model; an error response becomes a throw. */
  function candidates(models: { baseUrl: string; id: string; contextWindow: number }[]): Candidate<string>[] {
    return orderCandidateModels(models[0], models.slice(1)).map((model) => {
      const backend = modelSummarizer({ apiKeyEnv: "NONE", stream: false, reasoning: false, ...model }, createEnvSecretStore({}));
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
