/**
 * Handlers of the `secrets:` channels for the settings screen: whether each API key is set and
 * where it comes from, and storing one (desktop app only). A key's value never leaves main.
 */
import { loadSettings } from "../../settings/store.ts";
import type { AppContext, AreaHandlers } from "../types.ts";

/** The key names the configured models use (the current one first). */
function configuredNames(ctx: AppContext): string[] {
  const settings = loadSettings(ctx.db);
  return [settings.model, ...settings.fallbackModels].flatMap((model) => (model ? [model.apiKeyEnv] : []));
}

export const secretsHandlers: AreaHandlers<"secrets"> = {
  "secrets:status": (input, ctx) => ctx.secrets.status(input.names ?? configuredNames(ctx)),
  "secrets:set": async (input, ctx) => {
    await ctx.secrets.set(input.name, input.value);
    return ctx.secrets.status([...configuredNames(ctx), input.name]);
  },
};
