/**
 * Handlers of the `settings:` channels: the settings document (a change is announced as
 * `settings:changed`), prompt templates in effect,
 * hooks, and a connection test of the configured model and remote summary endpoint, which
 * settings:cancel-test-connection aborts by the id its window gave it (its HTTP requests with it).
 */
import path from "node:path";
import type { ConnectionTestDto } from "../../../core/api/dto.ts";
import { testConnection } from "../../llm/openai-client.ts";
import { probeRemoteEndpoint } from "../../llm/remote.ts";
import { keyConfigFor, summarizersFor } from "../../pipelines/summarizers.ts";
import { loadSettings, updateSetting } from "../../settings/store.ts";
import { ApiFailure } from "../errors.ts";
import type { AppContext, AreaHandlers } from "../types.ts";

export const CONNECTION_TEST_CANCELLED = "Connection test cancelled";

/** The remote summary endpoint when set, then the model; `signal` aborts their HTTP requests. */
async function runConnectionTest(ctx: AppContext, signal: AbortSignal): Promise<ConnectionTestDto> {
  const settings = loadSettings(ctx.db);
  const summarizer = summarizersFor(settings, ctx.secrets).describe;
  // The remote endpoint writes the summaries when set: an "OK" must mean it answers too.
  const endpoint = settings.compaction.remoteEndpoint;
  const remote = endpoint ? await probeRemoteEndpoint(endpoint, undefined, undefined, signal) : undefined;
  if (remote && !remote.ok) return { ok: false, message: remote.message, summarizer };
  if (!settings.model) return { ok: true, model: "offline", latencyMs: remote?.latencyMs ?? 0, summarizer };
  const model = settings.model;
  const result = await testConnection(
    {
      baseUrl: model.baseUrl,
      ...keyConfigFor(model, ctx.secrets),
      model: model.id,
      contextWindow: model.contextWindow,
    },
    signal,
  );
  return result.ok ? { ...result, summarizer } : { ok: false, message: result.message, summarizer };
}

export const settingsHandlers: AreaHandlers<"settings"> = {
  "settings:get": (_input, ctx) => loadSettings(ctx.db),
  "settings:set": (input, ctx) => {
    // JSON has no undefined: an absent `expected` means "no check", null is a value.
    const expected = input.expected === undefined ? undefined : { value: input.expected };
    const { settings, changed } = updateSetting(ctx.db, input.key, input.value, expected);
    // Every window of this process (other tabs too) shows the new settings; the outside-changes
    // poll knows this process's writes and does not announce them again.
    if (changed) ctx.events.emit("settings:changed", { settings });
    return settings;
  },
  "settings:prompts": (_input, ctx) => [
    ...Object.values(ctx.prompts.templates).map((template) => ({
      name: template.name,
      source: template.source,
      path: template.path,
      warning: template.warning ?? null,
    })),
    ...ctx.prompts.strayOverrides.map((stray) => ({
      name: stray.file,
      source: "unused" as const,
      path: stray.path,
      warning: stray.warning,
    })),
  ],
  "settings:hooks": async (_input, ctx) => {
    await ctx.hooksReady;
    return {
      handlers: ctx.hooks.list(),
      errors: ctx.hooks.errors.map((error) => ({ ...error })),
      folder: path.join(ctx.dataDir, "hooks"),
    };
  },
  "settings:test-connection": async (input, ctx) => {
    const { testId } = input;
    if (testId !== undefined && ctx.connectionTests.has(testId)) {
      throw new ApiFailure("conflict", `A connection test with id ${testId} is already running`);
    }
    // Registered before the first await; a cancel that overtook this request has aborted it already.
    const controller = testId === undefined ? new AbortController() : ctx.connectionTests.start(testId);
    try {
      if (controller.signal.aborted) throw new ApiFailure("cancelled", CONNECTION_TEST_CANCELLED);
      const result = await runConnectionTest(ctx, controller.signal);
      // The requests were aborted: whatever they ended in, the answer is "cancelled".
      if (controller.signal.aborted) throw new ApiFailure("cancelled", CONNECTION_TEST_CANCELLED);
      return result;
    } finally {
      if (testId !== undefined) ctx.connectionTests.end(testId);
    }
  },
  "settings:cancel-test-connection": (input, ctx) => {
    // Only the test this id names: another window's test goes on to its own result.
    return { cancelled: ctx.connectionTests.cancel(input.testId) };
  },
};
