/**
 * Who Canopy's chat request goes to (SPEC §3.6 "foreign" replies): the configured model's
 * provider as Canopy writes it on replies, and the OpenAI chat-completions API. Also the target
 * the LLM view's request annotations are computed for.
 */
import type { RequestTargetInfo } from "../../core/session/request-messages.ts";
import type { ModelSettings } from "../../core/settings/schema.ts";

/** The `api` the agents record for OpenAI-compatible chat completions. */
export const CHAT_API = "openai-completions";

/** The `provider` written on replies: "openai" for api.openai.com, else the endpoint's host. */
export function providerOf(baseUrl: string): string {
  try {
    const url = new URL(baseUrl);
    return url.hostname === "api.openai.com" ? "openai" : url.host || "openai";
  } catch {
    return "openai";
  }
}

/** The request target of Canopy's chat turns with `model`. */
export function chatTargetOf(model: ModelSettings): RequestTargetInfo {
  return {
    provider: providerOf(model.baseUrl),
    api: CHAT_API,
    model: model.id,
    sender: "canopy",
    from: "configured",
  };
}
