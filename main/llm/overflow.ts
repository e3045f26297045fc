/**
 * Context-overflow detection (SPEC §9.3): the error texts providers use when a prompt does not
 * fit, the bare `400/413 (no body)` form, and silent overflow (a "stop" reply whose measured
 * input exceeds the window). Overflow errors go to compaction, never to the generic retry.
 */

/** The §9.3 list, matched case-insensitively anywhere in the error text. */
const OVERFLOW_PATTERNS: readonly RegExp[] = [
  /prompt is too long/i,
  /input is too long for requested model/i,
  /exceeds the context window/i,
  /input token count.*exceeds the maximum/i,
  /maximum prompt length is \d+/i,
  /reduce the length of the messages/i,
  /maximum context length is \d+ tokens/i,
  /exceeds the limit of \d+/i,
  /exceeds the available context size/i,
  /greater than the context length/i,
  /context window exceeds limit/i,
  /exceeded model token limit/i,
  /context[_ ]length[_ ]exceeded/i,
  /too many tokens/i,
  /token limit exceeded/i,
  /request_too_large/i,
];

/** Some gateways answer an oversized request with a bare status and no body. */
const NO_BODY_PATTERN = /^(?:400|413)\s*(?:status code)?\s*\(no body\)/i;

/** The usage fields the silent-overflow rule reads (a subset of core's `Usage`). */
export interface OverflowUsage {
  input?: number | undefined;
  cacheRead?: number | undefined;
}

/** The fields of an assistant message (or summarizer response) the check needs. */
export interface OverflowCandidate {
  stopReason?: string | undefined;
  errorMessage?: string | undefined;
  usage?: OverflowUsage | undefined;
}

/** True when a raw error text says the prompt did not fit the model's context. */
export function isOverflowError(text: string | undefined | null): boolean {
  if (!text) return false;
  if (NO_BODY_PATTERN.test(text)) return true;
  return OVERFLOW_PATTERNS.some((pattern) => pattern.test(text));
}

/**
 * SPEC §9.3 `isContextOverflow`. A window of 0 or less counts as "not given" (the automatic
 * check passes 0 when the model's window is unknown), so silent overflow is then never reported.
 */
export function isContextOverflow(message: OverflowCandidate, contextWindow?: number): boolean {
  if (message.stopReason === "error") return isOverflowError(message.errorMessage);
  if (message.stopReason !== "stop" || contextWindow === undefined || !(contextWindow > 0)) return false;
  const usage = message.usage;
  if (!usage) return false;
  return (usage.input ?? 0) + (usage.cacheRead ?? 0) > contextWindow;
}
