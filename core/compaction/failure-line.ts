/**
 * The line a user reads when a compaction or a branch summary fails ("Compaction failed: 401 …").
 * The errors keep the SPEC's texts (§6.3 "Summarization failed: …"), which only repeat the line's
 * own "failed:": the main summary's prefix is dropped and the other steps are named in brackets.
 */

/** The SPEC's prefixes of a failed summary step, and how the line names the step ("" = not named). */
const STEPS: readonly (readonly [prefix: string, step: string])[] = [
  ["Turn prefix summarization failed", "turn-prefix summary"],
  ["Short summary failed", "short summary"],
  ["Remote compaction failed", "remote endpoint"],
  ["Summarization failed", ""],
  ["Compaction failed", ""],
];

/** E.g. ("Compaction", "Summarization failed: 401 Invalid API key") → "Compaction failed: 401 Invalid API key". */
export function failureLine(what: string, message: string): string {
  for (const [prefix, step] of STEPS) {
    if (message !== prefix && !message.startsWith(`${prefix}: `)) continue;
    const reason = message.slice(prefix.length + 2) || "no reason given";
    return step ? `${what} failed (${step}): ${reason}` : `${what} failed: ${reason}`;
  }
  return `${what} failed: ${message || "no reason given"}`;
}
