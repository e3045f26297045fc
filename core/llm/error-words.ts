/**
 * The words a user reads for a model request's error. The raw text — status, the server's
 * message and the response's retry hints as `(retry-after=20)` — is what the retry policy parses
 * and what a chat reply stores in the session; shown, a rate limit says so and the hints read as
 * the wait they ask for.
 */
import { parseRetryAfterHint } from "./retry-hint.ts";

/** The hint headers openai-client.ts appends: ` (retry-after-ms=1500, retry-after=2)`. */
const HINTS = / \(((?:retry-after-ms|retry-after|x-ratelimit-reset-ms|x-ratelimit-reset)=[^)]*)\)/i;

/** A 429 at the start of the text or after a prefix ("Summarization failed: 429 …"). */
const RATE_LIMITED = /(^|: )429 ?(.*)$/s;

/** "20 s", "3 min": the wait a hint asks for. */
function waitWords(ms: number): string {
  const seconds = Math.ceil(ms / 1000);
  return seconds < 120 ? `${seconds} s` : `${Math.round(seconds / 60)} min`;
}


/**
 * E.g. "429 Rate limit reached (retry-after=20)" → "The model's server is rate-limiting requests
 * (429: Rate limit reached); it asked to wait 20 s". Other texts come back as they are.
 */
export function modelErrorInWords(text: string, nowMs: number = Date.now()): string {
  const hints = HINTS.exec(text);
  const base = hints ? text.slice(0, hints.index) + text.slice(hints.index + hints[0].length) : text;
  const worded = base.replace(RATE_LIMITED, (_all, before: string, message: string) =>
    `${before}The model's server is rate-limiting requests (${message.trim() ? `429: ${message.trim()}` : "429"})`,
  );
  if (!hints?.[1]) return worded;
  const waitMs = parseRetryAfterHint(hints[1], nowMs);
  if (waitMs === undefined) return worded;
  return `${worded}; ${waitMs <= 0 ? "it allows a retry now" : `it asked to wait ${waitWords(waitMs)}`}`;
}
