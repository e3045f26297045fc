/**
 * Handlers of the `settings:` channels: the settings document, prompt templates in effect,
 * hooks, and a connection test of the configured model and remote summary endpoint.
 */
import path from "node:path";
import { testConnection } from "../../llm/openai-client.ts";
import { probeRemoteEndpoint } from "../../llm/remote.ts";
import { apiKeyFor, summarizersFor } from "../../pipelines/summarizers.ts";
import { loadSettings, updateSetting } from "../../settings/store.ts";
import type { AreaHandlers } from "../types.ts";

export const settingsHandlers: AreaHandlers<"settings"> = {
  "settings:get": (_input, ctx) => loadSettings(ctx.db),
  "settings:set": (input, ctx) => updateSetting(ctx.db, input.key, input.value),
  "settings:prompts": (_input, ctx) =>
    Object.values(ctx.prompts.templates).map((template) => ({
      name: template.name,
      source: template.source,
      path: template.path,
      warning: template.warning ?? null,
    })),
  "settings:hooks": async (_input, ctx) => {
    await ctx.hooksReady;
    return {
      handlers: ctx.hooks.list(),
      errors: ctx.hooks.errors.map((error) => ({ ...error })),
      folder: path.join(ctx.dataDir, "hooks"),
    };
  },
  "settings:test-connection": async (_input, ctx) => {
    const settings = loadSettings(ctx.db);
    const summarizer = summarizersFor(settings, ctx.secrets).describe;
    // The remote endpoint writes the summaries when set: an "OK" must mean it answers too.
    const endpoint = settings.compaction.remoteEndpoint;
    const remote = endpoint ? await probeRemoteEndpoint(endpoint) : undefined;
    if (remote && !remote.ok) return { ok: false, message: remote.message, summarizer };
    if (!settings.model) return { ok: true, model: "offline", latencyMs: remote?.latencyMs ?? 0, summarizer };
    const model = settings.model;
    const result = await testConnection({
      baseUrl: model.baseUrl,
      apiKey: apiKeyFor(model, ctx.secrets),
      model: model.id,
      contextWindow: model.contextWindow,
    });
    return result.ok ? { ...result, summarizer } : { ok: false, message: result.message, summarizer };
  },
};
