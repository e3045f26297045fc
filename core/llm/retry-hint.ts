/**
 * Retry hints in a model error's text (SPEC §9.4 step 4): `retry-after-ms`, `retry-after`,
 * `x-ratelimit-reset-ms`, `x-ratelimit-reset`, as openai-client.ts copies the response headers
 * into it. Read by the retry policy (main/llm/retry.ts) and by the words a user is shown.
 */

/** HTTP-date forms (IMF-fixdate, RFC 850, asctime) that may follow `retry-after[:=]`. */
const HTTP_DATE_PATTERNS: readonly RegExp[] = [
  /^[A-Za-z]{3,9},\s*\d{1,2}[ -][A-Za-z]{3}[ -]\d{2,4}\s+\d{2}:\d{2}:\d{2}\s*GMT/,
  /^[A-Za-z]{3}\s+[A-Za-z]{3}\s+\d{1,2}\s+\d{2}:\d{2}:\d{2}\s+\d{4}/,
];

/**
 * Reads a retry delay (ms) from an error text, trying in order `retry-after-ms`, `retry-after`
 * (seconds or HTTP date), `x-ratelimit-reset-ms` (epoch ms when > 1e12, else a delay) and
 * `x-ratelimit-reset` (epoch seconds when > 1e9, else seconds). Past instants give 0.
 */
export function parseRetryAfterHint(text: string, nowMs: number): number | undefined {
  const retryAfterMs = /retry-after-ms\s*[:=]\s*(\d+(?:\.\d+)?)/i.exec(text);
  if (retryAfterMs?.[1]) return Math.max(0, Number(retryAfterMs[1]));

  const retryAfter = /retry-after\s*[:=]\s*/i.exec(text);
  if (retryAfter) {
    const rest = text.slice(retryAfter.index + retryAfter[0].length);
    const seconds = /^\d+(?:\.\d+)?/.exec(rest);
    if (seconds) return Math.max(0, Number(seconds[0]) * 1000);
    for (const pattern of HTTP_DATE_PATTERNS) {
      const date = pattern.exec(rest);
      if (!date) continue;
      const raw = date[0].endsWith("GMT") ? date[0] : `${date[0]} GMT`;
      const at = Date.parse(raw);
      if (!Number.isNaN(at)) return Math.max(0, at - nowMs);
    }
  }

  const resetMs = /x-ratelimit-reset-ms\s*[:=]\s*(\d+)/i.exec(text);
  if (resetMs?.[1]) {
    const value = Number(resetMs[1]);
    return value > 1e12 ? Math.max(0, value - nowMs) : value;
  }

  const reset = /x-ratelimit-reset\s*[:=]\s*(\d+)/i.exec(text);
  if (reset?.[1]) {
    const value = Number(reset[1]);
    return value > 1e9 ? Math.max(0, value * 1000 - nowMs) : value * 1000;
  }
  return undefined;
}
