// Branch summarization planning: SPEC §2.7 (behaviour 49), §8.2 (behaviour 50), §2.8 step 8.
import { describe, expect, it } from "vitest";
import {
  collectEntriesForBranchSummary,
  newLeafForNavigation,
  prepareBranchEntries,
} from "../../../core/compaction/branch.ts";
import { computeFileLists } from "../../../core/compaction/file-ops.ts";
import type { SessionEntry } from "../../../core/session/entries.ts";
import { buildTreeIndex } from "../../../core/session/tree.ts";
import { assistant, entry, msg, user } from "../_builders.ts";
import { call, pathBuilder } from "./_path.ts";

// A─B─C─D and A─E─F, plus a second root tree X─Y.
function forest() {
  const entries: SessionEntry[] = [
    msg("A", null, user("a")),
    msg("B", "A", assistant("b")),
    msg("C", "B", user("c")),
    msg("D", "C", assistant("d")),
    msg("E", "A", assistant("e")),
    msg("F", "E", user("f")),
    msg("X", null, user("x")),
    msg("Y", "X", assistant("y")),
  ];
  return buildTreeIndex(entries);
}

const idsOf = (entries: readonly SessionEntry[]) => entries.map((e) => e.id);

describe("collectEntriesForBranchSummary (behaviour 49)", () => {
  const index = forest();
  it.each([
    ["D", "F", "A", ["B", "C", "D"]],
    ["D", "B", "B", ["C", "D"]],
    ["B", "D", "B", []],
    ["Y", "D", null, ["X", "Y"]],
  ] as const)("%s → %s: common ancestor %s, entries %j", (oldLeaf, target, common, entries) => {
    const result = collectEntriesForBranchSummary(index, oldLeaf, target);
    expect(result.commonAncestorId).toBe(common);
    expect(idsOf(result.entries)).toEqual(entries);
  });

  it("null → anything: no common ancestor, no entries", () => {
    expect(collectEntriesForBranchSummary(index, null, "D")).toEqual({ entries: [], commonAncestorId: null });
  });

  it("includes compactions and branch summaries on the abandoned path", () => {
    const tree = buildTreeIndex([
      msg("u", null, user("u")),
      entry("c", "u", "compaction", { summary: "S", firstKeptEntryId: "u", tokensBefore: 1 }),
      entry("bs", "c", "branch_summary", { fromId: "c", summary: "B" }),
      msg("a", "bs", assistant("a")),
      msg("t", "u", user("other")),
    ]);
    expect(idsOf(collectEntriesForBranchSummary(tree, "a", "t").entries)).toEqual(["c", "bs", "a"]);
  });

  it("terminates on broken trees (cycles, self-parents, unknown ids)", () => {
    const tree = buildTreeIndex([
      msg("p", "q", user("p")),
      msg("q", "p", assistant("q")),
      msg("s", "s", user("s")),
      msg("r", "q", user("r")),
    ]);
    const result = collectEntriesForBranchSummary(tree, "r", "s");
    expect(result.commonAncestorId).toBeNull();
    // p → q is kept, q → p closes the cycle so q becomes a root: r's path is q, r.
    expect(idsOf(result.entries)).toEqual(["q", "r"]);
    expect(collectEntriesForBranchSummary(tree, "nope", "s")).toEqual({
      entries: [],
      commonAncestorId: null,
    });
    expect(collectEntriesForBranchSummary(tree, "r", "nope")).toMatchObject({ commonAncestorId: null });
  });
});

describe("prepareBranchEntries (behaviour 50)", () => {
  // U100, A100 (read /a.ts), T5000, C(summary 1000), U100, A100 (edit /b.ts, write /a.ts),
  // BS(summary "prev", details read [/r.ts] modified [/m.ts]). The tool calls add to the
  // assistants' estimates: 105 and 111 tokens.
  const p = pathBuilder();
  p.u(100);
  p.a(100, { calls: [call("read", { path: "/a.ts" })] });
  p.t(5000, "read");
  p.c("e0", "x".repeat(4000));
  p.u(100);
  p.a(100, { calls: [call("edit", { path: "/b.ts" }), call("write", { path: "/a.ts" })] });
  p.bs(0, { summary: "prev", details: { readFiles: ["/r.ts"], modifiedFiles: ["/m.ts"] } });
  const FILES = { readFiles: ["/r.ts"], modifiedFiles: ["/a.ts", "/b.ts", "/m.ts"] };

  it("budget 0: every message except the tool result, total 1417", () => {
    const prepared = prepareBranchEntries(p.entries);
    expect(prepared.messages.map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "compactionSummary",
      "user",
      "assistant",
      "branchSummary",
    ]);
    expect(prepared.totalTokens).toBe(1417);
    expect(computeFileLists(prepared.fileOps)).toEqual(FILES);
  });

  it.each([300, 1100, 1200])(
    "budget %i: the overflowing compaction summary is admitted by the 90-percent rule (total 1212)",
    (budget) => {
      const prepared = prepareBranchEntries(p.entries, budget);
      expect(prepared.messages.map((m) => m.role)).toEqual([
        "compactionSummary",
        "user",
        "assistant",
        "branchSummary",
      ]);
      expect(prepared.totalTokens).toBe(1212);
      expect(computeFileLists(prepared.fileOps)).toEqual(FILES);
    },
  );

  it("budget 1301: the summary fits normally and the walk stops at the older assistant", () => {
    const prepared = prepareBranchEntries(p.entries, 1301);
    expect(prepared.messages.map((m) => m.role)).toEqual([
      "compactionSummary",
      "user",
      "assistant",
      "branchSummary",
    ]);
    expect(prepared.totalTokens).toBe(1212);
    expect(computeFileLists(prepared.fileOps)).toEqual(FILES);
  });

  it("earlier summaries from extensions (fromExtension or pi's fromHook) do not contribute files; compaction details never do", () => {
    const q = pathBuilder();
    q.bs(1, { details: { readFiles: ["/ext.ts"] }, fromExtension: true });
    q.bs(1, { details: { readFiles: ["/hook.ts"] }, fromHook: true });
    q.c("e0", "S", { details: { readFiles: ["/c.ts"], modifiedFiles: [] } });
    q.bs(1, { details: { modifiedFiles: ["/agent.ts"] } });
    expect(computeFileLists(prepareBranchEntries(q.entries).fileOps)).toEqual({
      readFiles: [],
      modifiedFiles: ["/agent.ts"],
    });
  });

  it("an overflowing plain message stops the walk even under 90 % of the budget", () => {
    const q = pathBuilder();
    q.u(500);
    q.a(10);
    const prepared = prepareBranchEntries(q.entries, 100);
    expect(prepared.messages.map((m) => m.role)).toEqual(["assistant"]);
    expect(prepared.totalTokens).toBe(10);
  });
});

describe("newLeafForNavigation (SPEC §2.8 step 8)", () => {
  it("a user message: the leaf becomes its parent and its text goes back to the editor", () => {
    const target = msg("u2", "a1", {
      ...user(""),
      content: [
        { type: "text", text: "fix " },
        { type: "text", text: "it" },
      ],
    });
    expect(newLeafForNavigation(target)).toEqual({ newLeafId: "a1", editorText: "fix it" });
    expect(newLeafForNavigation(msg("u1", null, { role: "user", content: "hello", timestamp: 0 }))).toEqual({
      newLeafId: null,
      editorText: "hello",
    });
  });

  it("a custom_message: likewise", () => {
    const target = entry("cm", "p", "custom_message", { customType: "x", content: "note", display: false });
    expect(newLeafForNavigation(target)).toEqual({ newLeafId: "p", editorText: "note" });
  });

  it("anything else becomes the leaf itself, without editor text", () => {
    expect(newLeafForNavigation(msg("a", "u", assistant("hi")))).toEqual({ newLeafId: "a" });
    expect(newLeafForNavigation(entry("c", "a", "compaction", { summary: "S" }))).toEqual({ newLeafId: "c" });
    expect(newLeafForNavigation(entry("l", "a", "label", { targetId: "a" }))).toEqual({ newLeafId: "l" });
  });

  it("with an index, a repaired parent is used (an orphan user message → null)", () => {
    const orphan = msg("u", "missing", user("again"));
    const index = buildTreeIndex([orphan]);
    expect(newLeafForNavigation(orphan)).toEqual({ newLeafId: "missing", editorText: "again" });
    expect(newLeafForNavigation(orphan, index)).toEqual({ newLeafId: null, editorText: "again" });
  });
});
