/**
 * A session's usage statistics as the agents keep them (SPEC §2.1): the sums of `input`, `output`,
 * `cacheRead`, `cacheWrite` and `cost.total` over every assistant message of the file (all
 * branches), plus the `details.usage` of `task` tool results (a sub-agent's spend). Lenient: a
 * field that is not a finite number counts 0, as a hand-edited or older file may have anything.
 */

export interface UsageTotals {
  /** Assistant messages (and task results) that carried a usage object. */
  replies: number;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /** Sum of `cost.total`, in the currency the agent priced in (USD for pi's model table). */
  cost: number;
}

export const emptyUsageTotals = (): UsageTotals => ({
  replies: 0,
  input: 0,
  output: 0,
  cacheRead: 0,
  cacheWrite: 0,
  cost: 0,
});

const amount = (value: unknown): number => (typeof value === "number" && Number.isFinite(value) ? value : 0);

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Adds one usage object (an assistant message's `usage`, a task result's `details.usage`). */
export function addUsage(totals: UsageTotals, usage: unknown): void {
  if (!isRecord(usage)) return;
  totals.replies += 1;
  totals.input += amount(usage.input);
  totals.output += amount(usage.output);
  totals.cacheRead += amount(usage.cacheRead);
  totals.cacheWrite += amount(usage.cacheWrite);
  if (isRecord(usage.cost)) totals.cost += amount(usage.cost.total);
}

/** The usage a message adds to the totals (§2.1), or undefined when it adds none. */
export function messageUsage(message: unknown): unknown {
  if (!isRecord(message)) return undefined;
  if (message.role === "assistant") return message.usage;
  if (message.role === "toolResult" && message.toolName === "task" && isRecord(message.details)) {
    return message.details.usage;
  }
  return undefined;
}

/** §2.1 over a session's entries: only `message` entries carry usage. */
export function usageTotals(entries: Iterable<{ type: string; message?: unknown }>): UsageTotals {
  const totals = emptyUsageTotals();
  for (const entry of entries) {
    if (entry.type === "message") addUsage(totals, messageUsage(entry.message));
  }
  return totals;
}

/** A cost as people read it: cents from a dollar up, four decimals below (a cheap reply). */
export function formatCost(cost: number): string {
  return `$${cost >= 1 ? cost.toFixed(2) : cost.toFixed(4)}`;
}

/**
 * Token counts and cost as parts (`count` formats token counts): input, output, the cache's
 * reads and writes when there were any, the cost when the agent priced the replies.
 */
function tokenParts(totals: UsageTotals, count: (tokens: number) => string): string[] {
  const parts = [`input ${count(totals.input)}`, `output ${count(totals.output)}`];
  if (totals.cacheRead > 0) parts.push(`cache read ${count(totals.cacheRead)}`);
  if (totals.cacheWrite > 0) parts.push(`cache write ${count(totals.cacheWrite)}`);
  if (totals.cost > 0) parts.push(`cost ${formatCost(totals.cost)}`);
  return parts;
}

/** The totals as one line of parts, the replies counted first; empty when no reply carried usage. */
export function usageParts(totals: UsageTotals, count: (tokens: number) => string): string[] {
  if (totals.replies === 0) return [];
  return [`${totals.replies} ${totals.replies === 1 ? "reply" : "replies"}`, ...tokenParts(totals, count)];
}

/** One reply's usage as parts; empty when it has none or it is all zeros (a provider that sends none). */
export function replyUsageParts(usage: unknown, count: (tokens: number) => string): string[] {
  const totals = emptyUsageTotals();
  addUsage(totals, usage);
  const { input, output, cacheRead, cacheWrite, cost } = totals;
  if (input + output + cacheRead + cacheWrite + cost === 0) return [];
  return tokenParts(totals, count);
}
