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

/**
 * What one usage object adds to the totals (a reply): its amounts as counted, an odd value 0.
 * Kept per entry by the library (main/library/usage.ts), so its totals read no entry JSON.
 */
export interface UsageAmounts {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  cost: number;
}

/** The amounts of one usage object, or null when it is none (then it adds no reply). */
export function usageAmounts(usage: unknown): UsageAmounts | null {
  if (!isRecord(usage)) return null;
  return {
    input: amount(usage.input),
    output: amount(usage.output),
    cacheRead: amount(usage.cacheRead),
    cacheWrite: amount(usage.cacheWrite),
    cost: isRecord(usage.cost) ? amount(usage.cost.total) : 0,
  };
}

/** Adds one reply's amounts: the very sums addUsage makes of its usage object, to the last bit. */
export function addAmounts(totals: UsageTotals, amounts: UsageAmounts): void {
  totals.replies += 1;
  totals.input += amounts.input;
  totals.output += amounts.output;
  totals.cacheRead += amounts.cacheRead;
  totals.cacheWrite += amounts.cacheWrite;
  totals.cost += amounts.cost;
}

/** Adds one usage object (an assistant message's `usage`, a task result's `details.usage`). */
export function addUsage(totals: UsageTotals, usage: unknown): void {
  const amounts = usageAmounts(usage);
  if (amounts !== null) addAmounts(totals, amounts);
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

/** The amounts an entry adds to the totals (§2.1: only `message` entries carry usage), or null. */
export function entryUsageAmounts(entry: { type: string; message?: unknown }): UsageAmounts | null {
  return entry.type === "message" ? usageAmounts(messageUsage(entry.message)) : null;
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
