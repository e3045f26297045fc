// How usage statistics read (core/session/usage-totals.ts): the session's totals with the replies
// counted first, one reply's usage without that count, cache and cost parts only when non-zero,
// nothing for a reply whose provider reported none (all zeros), costs in cents or four decimals.
import { describe, expect, it } from "vitest";
import { formatCost, replyUsageParts, usageParts } from "../../core/session/usage-totals.ts";

const plain = (n: number) => String(n);

describe("usage as text", () => {
  it("the totals name the replies, then what is non-zero", () => {
    const totals = { replies: 2, input: 10, output: 5, cacheRead: 0, cacheWrite: 7, cost: 0 };
    expect(usageParts(totals, plain)).toEqual(["2 replies", "input 10", "output 5", "cache write 7"]);
    expect(usageParts({ ...totals, replies: 1, cost: 0.5 }, plain)).toEqual([
      "1 reply",
      "input 10",
      "output 5",
      "cache write 7",
      "cost $0.5000",
    ]);
    expect(usageParts({ ...totals, replies: 0 }, plain)).toEqual([]);
  });

  it("one reply's usage, nothing when it reported none", () => {
    const usage = { input: 3, output: 191, cacheRead: 0, cacheWrite: 1684, cost: { total: 0.009189 } };
    expect(replyUsageParts(usage, plain)).toEqual(["input 3", "output 191", "cache write 1684", "cost $0.0092"]);
    expect(replyUsageParts({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: { total: 0 } }, plain)).toEqual([]);
    expect(replyUsageParts(undefined, plain)).toEqual([]);
    expect(replyUsageParts({ input: "many" }, plain)).toEqual([]);
  });

  it("costs from a dollar up in cents, below in four decimals", () => {
    expect(formatCost(42.6049)).toBe("$42.60");
    expect(formatCost(1)).toBe("$1.00");
    expect(formatCost(0.00918)).toBe("$0.0092");
  });
});
