// session:tree: one node per entry with the repaired parent, kind, snippet, label and the
// compaction markers the canvas draws; a cycle in the file never reaches the canvas; the
// problems list malformed lines too, in file order.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TREE_SNIPPET_CHARS } from "../../core/api/dto.ts";
import { BIG_TEXT_END_MARKER, bigSummarySession, bigToolResultSession } from "../helpers/big-session.ts";
import { fixturePath } from "../helpers/fixtures.ts";
import { createHarness, type Harness, removeDir } from "./pipelines/harness.ts";

let h: Harness;

/** The header line of a v3 session file with id `id`. */
const headerLine = (id: string) =>
  JSON.stringify({ type: "session", version: 3, id, timestamp: "2026-01-01T00:00:00.000Z", cwd: "/x" });
/** A user message line whose text is its id. */
const userLine = (id: string, parentId: string | null) =>
  JSON.stringify({
    type: "message",
    id,
    parentId,
    timestamp: "2026-01-01T00:00:01.000Z",
    message: { role: "user", content: id, timestamp: 1 },
  });

beforeAll(() => {
  h = createHarness();
});
afterAll(() => {
  h.close();
  removeDir(h.dir);
});

describe("session:tree", () => {
  it("gives every entry of a fixture as a node, with labels and compaction markers", async () => {
    const report = await h.call("library:import", { path: fixturePath("tree-00.jsonl") });
    const sessionId = report.files[0]?.sessionId as string;
    const tree = await h.call("session:tree", { sessionId });
    const lines = readFileSync(fixturePath("tree-00.jsonl"), "utf8").trim().split("\n").slice(1);
    const entries = lines.map(
      (line) => JSON.parse(line) as { id: string; parentId: string | null; type: string },
    );
    expect(tree.nodes.map((node) => node.id)).toEqual(entries.map((entry) => entry.id));
    expect(tree.nodes.map((node) => node.parentId)).toEqual(entries.map((entry) => entry.parentId));
    expect(tree.nodes.find((node) => node.id === "aadc89d7")?.label).toBe("label-token");
    const compaction = tree.nodes.find((node) => node.id === "6a0b3345");
    expect(compaction).toMatchObject({ kind: "compaction", tokensBefore: 93, firstKeptEntryId: "8d6ed8e9" });
    expect(compaction?.summary).toMatch(/^Compaction summary:/);
    expect(tree.viewLeafId).toBe(entries.at(-1)?.id);
    expect(tree.nodes.every((node) => node.text.length <= TREE_SNIPPET_CHARS)).toBe(true);
    // Branch summaries carry the entry they were left from (the renderer's context diff uses it),
    // and the tree says what undo/redo would do: the renderer needs no other session call.
    const fromIds = new Map(
      lines
        .map((line) => JSON.parse(line) as { id: string; type: string; fromId?: string })
        .filter((entry) => entry.type === "branch_summary")
        .map((entry) => [entry.id, entry.fromId]),
    );
    expect(fromIds.size).toBeGreaterThan(0);
    for (const [id, fromId] of fromIds)
      expect(tree.nodes.find((node) => node.id === id)?.fromId).toBe(fromId);
    expect(tree.history).toEqual({ undo: null, redo: null });
  });

  it("sends a long summary's beginning with its full length, and context:get all of it", async () => {
    const file = path.join(h.dir, "big-summary.jsonl");
    writeFileSync(file, bigSummarySession("big-summary", 1_000_000));
    await h.call("library:import", { path: file });
    const tree = await h.call("session:tree", { sessionId: "big-summary" });
    const node = tree.nodes.find((n) => n.id === "a0000005");
    const summary = JSON.parse(readFileSync(file, "utf8").split("\n")[5] as string).summary as string;
    expect(node?.summary?.length).toBeLessThanOrEqual(2000);
    expect(summary.startsWith(node?.summary ?? "-")).toBe(true);
    expect(node?.summary?.endsWith("\n")).toBe(true);
    expect(node?.summaryChars).toBe(summary.length);
    // Display only: the model's view keeps the whole summary.
    const view = await h.call("context:get", { sessionId: "big-summary" });
    expect(JSON.stringify(view.messages[0])).toContain(BIG_TEXT_END_MARKER);
    // A short summary is sent whole, without a length.
    const small = await h.call("library:import", { path: fixturePath("tree-01.jsonl") });
    const smallTree = await h.call("session:tree", { sessionId: small.files[0]?.sessionId as string });
    const compaction = smallTree.nodes.find((n) => n.id === "6f996d7d");
    expect(compaction?.summary).toMatch(/^Compaction summary:/);
    expect(compaction?.summaryChars).toBeUndefined();
  });

  it("context:get leaves the agent's messages out on request, the provider messages unchanged", async () => {
    const file = path.join(h.dir, "big-tool.jsonl");
    writeFileSync(file, bigToolResultSession("big-tool", 100_000));
    await h.call("library:import", { path: file });
    const full = await h.call("context:get", { sessionId: "big-tool" });
    const lean = await h.call("context:get", { sessionId: "big-tool", agentMessages: false });
    expect(full.agentMessages).toHaveLength(4);
    expect(lean.agentMessages).toBeUndefined();
    expect(lean.messages).toEqual(full.messages);
    const { agentMessages, ...rest } = full;
    void agentMessages;
    expect(lean).toEqual(rest);
  });

  it("breaks a parentId cycle so the canvas gets a forest", async () => {
    const file = path.join(h.dir, "cycle.jsonl");
    writeFileSync(
      file,
      [headerLine("cycle-session"), userLine("a", "c"), userLine("b", "a"), userLine("c", "b")].join("\n"),
    );
    const report = await h.call("library:import", { path: file });
    const tree = await h.call("session:tree", { sessionId: report.files[0]?.sessionId as string });
    expect(tree.nodes).toHaveLength(3);
    expect(tree.nodes.filter((node) => node.parentId === null)).toHaveLength(1);
    expect(tree.problems.some((problem) => problem.kind === "cycle")).toBe(true);
  });

  it("lists malformed lines among the problems, every problem in file order", async () => {
    const file = path.join(h.dir, "problems.jsonl");
    // Line 2 a, line 3 malformed, line 4 a duplicate of a, line 5 an orphan.
    writeFileSync(
      file,
      [
        headerLine("problems-session"),
        userLine("a", null),
        "{oops",
        userLine("a", null),
        userLine("b", "zz"),
      ].join("\n"),
    );
    const report = await h.call("library:import", { path: file });
    const tree = await h.call("session:tree", { sessionId: report.files[0]?.sessionId as string });
    expect(tree.problems.map((problem) => [problem.line, problem.kind])).toEqual([
      [3, "malformed_line"],
      [4, "duplicate_id"],
      [5, "orphan"],
    ]);
    // The later duplicate is the node (as in every walk); the orphan hangs from nothing.
    expect(tree.nodes.map((node) => [node.id, node.line, node.parentId])).toEqual([
      ["a", 4, null],
      ["b", 5, null],
    ]);
    expect(tree.problems[0]?.message).toMatch(
      /^invalid JSON: .*; the line is kept, and export writes it back$/,
    );
    expect(tree.problems[1]?.entryId).toBe("a");
  });
});
