// diffContexts / summaryCoverage: which messages the model gains, loses, keeps, or receives as a
// summary instead, between two leaves and before/after a compaction (matched by source entry).
import { describe, expect, it } from "vitest";
import {
  type ContextSide,
  diffContexts,
  diffContextsWithLinks,
  type EntryLink,
  summaryCoverage,
} from "../../core/session/context-diff.ts";
import type { SessionEntry } from "../../core/session/entries.ts";
import { buildLlmView } from "../../core/session/llm-view.ts";
import { assistant, chain, compaction, entry, msg, plainTemplates, toolResult, user } from "./_builders.ts";

const u = (id: string) => msg(id, null, user(`user ${id}`));
const a = (id: string) => msg(id, null, assistant(`assistant ${id}`));

function side(entries: SessionEntry[], leafId: string | null): ContextSide {
  const view = buildLlmView(entries, leafId, plainTemplates);
  return {
    leafId: view.context.leafId,
    messageEntryIds: view.messageEntryIds,
    messageTokens: view.messageTokens,
    messages: view.messages,
  };
}

function linksOf(entries: SessionEntry[]): Map<string, EntryLink> {
  return new Map(
    entries.map((e) => [
      e.id as string,
      {
        parentId: (e.parentId as string | null) ?? null,
        type: e.type,
        fromId: typeof e.fromId === "string" ? e.fromId : null,
        time: Date.parse(e.timestamp),
      },
    ]),
  );
}

const changes = (diff: ReturnType<typeof diffContexts>) =>
  diff.rows.map((row) => `${row.change}:${row.entryId}`);

describe("diffContexts between two leaves", () => {
  const entries = chain(u("u1"), a("a1"), u("u2"), a("a2"));

  it("the same leaf keeps every message", () => {
    const diff = diffContexts(side(entries, "a2"), side(entries, "a2"));
    expect(changes(diff)).toEqual(["kept:u1", "kept:a1", "kept:u2", "kept:a2"]);
    expect(diff.counts).toEqual({ added: 0, removed: 0, kept: 4, summarized: 0 });
    expect(diff.beforeTokens).toBe(diff.afterTokens);
  });

  it("a later leaf on the same path only adds", () => {
    const diff = diffContexts(side(entries, "a1"), side(entries, "a2"));
    expect(changes(diff)).toEqual(["kept:u1", "kept:a1", "added:u2", "added:a2"]);
    expect(diff.beforeLeafId).toBe("a1");
    expect(diff.afterLeafId).toBe("a2");
  });

  it("another branch removes the abandoned messages and adds the other branch's", () => {
    const branched = [...entries, msg("u3", "a1", user("other")), msg("a3", "u3", assistant("other reply"))];
    const diff = diffContextsWithLinks(side(branched, "a2"), side(branched, "a3"), linksOf(branched));
    // Removed messages sit where they were, before the next message both views share (none here).
    expect(changes(diff)).toEqual(["kept:u1", "kept:a1", "added:u3", "added:a3", "removed:u2", "removed:a2"]);
    expect(diff.counts).toEqual({ added: 2, removed: 2, kept: 2, summarized: 0 });
    expect(diff.tokens.removed).toBe(
      diff.rows.filter((r) => r.change === "removed").reduce((s, r) => s + r.tokens, 0),
    );
  });

  it("a branch summary at the destination stands for the abandoned branch (summarized, not removed)", () => {
    // As the agents and Canopy write it: fromId is the summary's own parent (SPEC §1.5).
    const branched = [
      ...entries,
      msg("u3", "a1", user("other")),
      entry("bs", "u3", "branch_summary", { fromId: "u3", summary: "what happened on the a2 branch" }),
      msg("a3", "bs", assistant("after the summary")),
    ];
    const diff = diffContextsWithLinks(side(branched, "a2"), side(branched, "a3"), linksOf(branched));
    expect(changes(diff)).toEqual([
      "kept:u1",
      "kept:a1",
      "added:u3",
      "added:bs",
      "summarized:u2",
      "summarized:a2",
      "added:a3",
    ]);
    expect(diff.rows.filter((r) => r.change === "summarized").every((r) => r.summaryEntryId === "bs")).toBe(
      true,
    );
  });

  it("a branch summary does not stand for messages written after it (removed, not summarized)", () => {
    const branched = [
      ...entries,
      msg("u3", "a1", user("other")),
      entry("bs", "u3", "branch_summary", { fromId: "u3", summary: "what happened on the a2 branch" }),
      msg("u4", "a2", user("back on the old branch later")),
    ];
    const diff = diffContextsWithLinks(side(branched, "u4"), side(branched, "bs"), linksOf(branched));
    expect(changes(diff)).toEqual(["kept:u1", "kept:a1", "added:u3", "added:bs", "summarized:u2", "summarized:a2", "removed:u4"]);
  });

  it("a summary that both views already have explains nothing", () => {
    const coverage = [{ summaryEntryId: "a1", coveredEntryIds: new Set(["u2"]) }];
    const diff = diffContexts(side(entries, "a2"), side(entries, "a1"), coverage);
    expect(changes(diff)).toEqual(["kept:u1", "kept:a1", "removed:u2", "removed:a2"]);
  });

  it("flags a kept message whose content changed (a pruned tool output)", () => {
    const before = chain(u("u1"), msg("t1", null, toolResult("a long tool output")));
    const after = chain(u("u1"), msg("t1", null, toolResult("[Output truncated]", { prunedAt: 1 })));
    const diff = diffContexts(side(before, "t1"), side(after, "t1"));
    expect(diff.rows.map((r) => r.contentChanged)).toEqual([false, true]);
    expect(diff.rows.every((r) => r.change === "kept")).toBe(true);
  });

  it("matches an entry that yields several messages in order, and never matches messages without an entry", () => {
    const before: ContextSide = { leafId: "x", messageEntryIds: ["x", "x", null], messageTokens: [1, 2, 3] };
    const after: ContextSide = { leafId: "x", messageEntryIds: ["x", null, "x"], messageTokens: [1, 3, 2] };
    const diff = diffContexts(before, after);
    expect(diff.rows.map((r) => [r.change, r.beforeIndex, r.afterIndex])).toEqual([
      ["kept", 0, 0],
      ["added", null, 1],
      ["kept", 1, 2],
      ["removed", 2, null],
    ]);
  });
});

describe("diffContexts before/after a compaction", () => {
  // u1 a1 u2 a2 u3 a3 → compaction keeping from u3.
  const path = chain(u("u1"), a("a1"), u("u2"), a("a2"), u("u3"), a("a3"));
  const entries = [...path, compaction("c1", "a3", "u3"), msg("u4", "c1", user("after"))];
  const links = linksOf(entries);

  it("the compaction's summary replaces what came before the first kept entry", () => {
    const diff = diffContextsWithLinks(side(entries, "a3"), side(entries, "c1"), links);
    expect(changes(diff)).toEqual([
      "added:c1",
      "summarized:u1",
      "summarized:a1",
      "summarized:u2",
      "summarized:a2",
      "kept:u3",
      "kept:a3",
    ]);
    expect(diff.counts).toEqual({ added: 1, removed: 0, kept: 2, summarized: 4 });
    expect(diff.rows.find((r) => r.change === "summarized")?.summaryEntryId).toBe("c1");
    expect(diff.rows[0]?.afterIndex).toBe(0);
  });

  it("a leaf after the compaction compared with one before it", () => {
    const diff = diffContextsWithLinks(side(entries, "a2"), side(entries, "u4"), links);
    expect(changes(diff)).toEqual([
      "added:c1",
      "summarized:u1",
      "summarized:a1",
      "summarized:u2",
      "summarized:a2",
      "added:u3",
      "added:a3",
      "added:u4",
    ]);
  });

  it("without coverage the same messages are only removed", () => {
    const diff = diffContexts(side(entries, "a3"), side(entries, "c1"));
    expect(diff.counts).toEqual({ added: 1, removed: 4, kept: 2, summarized: 0 });
  });
});

describe("summaryCoverage", () => {
  it("a compaction covers its ancestors; a branch summary covers the abandoned path to the common ancestor", () => {
    const links = new Map<string, EntryLink>([
      ["r", { parentId: null, type: "message" }],
      ["x", { parentId: "r", type: "message" }],
      ["y", { parentId: "x", type: "message" }],
      ["z", { parentId: "r", type: "message" }],
      ["c", { parentId: "y", type: "compaction" }],
      ["b", { parentId: "z", type: "branch_summary", fromId: "z" }],
    ]);
    expect([...(summaryCoverage("c", links)?.coveredEntryIds ?? [])]).toEqual(["y", "x", "r"]);
    expect([...(summaryCoverage("b", links, "y")?.coveredEntryIds ?? [])]).toEqual(["y", "x"]);
    // fromId is the attachment point, not the abandoned leaf (SPEC §13.11): without the other
    // side of a comparison a branch summary covers nothing.
    expect([...(summaryCoverage("b", links)?.coveredEntryIds ?? [])]).toEqual([]);
    expect(summaryCoverage("x", links)).toBeNull();
    expect(summaryCoverage("missing", links)).toBeNull();
  });

  it("stops at a parent cycle", () => {
    const links = new Map<string, EntryLink>([
      ["p", { parentId: "q", type: "message" }],
      ["q", { parentId: "p", type: "message" }],
      ["c", { parentId: "p", type: "compaction" }],
    ]);
    expect([...(summaryCoverage("c", links)?.coveredEntryIds ?? [])].sort()).toEqual(["p", "q"]);
  });
});
