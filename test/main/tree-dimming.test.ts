// The canvas dims exactly what the model does not see: for every leaf of every fixture (and a
// hand-made file with metadata, `!!` commands, unknown and omp-only types, stacked compactions),
// the undimmed entries of session:tree + the renderer's marks are the entries behind the
// messages of context:get, and the compaction in effect and its first kept entry agree.
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ContextView, SessionTreeDto } from "../../core/api/dto.ts";
import { layoutTree } from "../../renderer/src/features/tree/layout.ts";
import { computeMarks, entryMarks, MARK } from "../../renderer/src/features/tree/marks.ts";
import { sessionLines } from "../helpers/entry-lines.ts";
import { fixturePath, readExpectedContexts } from "../helpers/fixtures.ts";
import { createHarness, type Harness, removeDir } from "./pipelines/harness.ts";

let h: Harness;

async function importFile(file: string): Promise<string> {
  const report = await h.call("library:import", { path: file });
  return report.files[0]?.sessionId as string;
}

/** Per leaf: the undimmed entries and the entries behind the LLM view's messages. */
async function compareLeaves(sessionId: string, leaves: readonly string[]) {
  const tree: SessionTreeDto = await h.call("session:tree", { sessionId });
  const layout = layoutTree(tree.nodes, {
    filter: "all",
    viewLeafId: tree.viewLeafId,
    collapseChains: false,
  });
  const mismatches: { leaf: string; undimmed: string[]; sent: string[] }[] = [];
  for (const leaf of leaves) {
    const marks = computeMarks({ layout, leafId: leaf, plan: null, branchPreview: null, dropTargetId: null });
    const undimmed = tree.nodes
      .map((node) => node.id)
      .filter((id) => (entryMarks(marks, layout, id) & MARK.dimmed) === 0)
      .sort();
    const view: ContextView = await h.call("context:get", { sessionId, leafId: leaf });
    const sent = [...new Set(view.messageEntryIds.filter((id): id is string => id !== null))].sort();
    if (JSON.stringify(undimmed) !== JSON.stringify(sent)) mismatches.push({ leaf, undimmed, sent });
    expect(marks.view?.compaction?.id ?? null).toBe(view.compactionId);
  }
  return mismatches;
}

beforeAll(() => {
  h = createHarness();
});
afterAll(() => {
  h.close();
  removeDir(h.dir);
});

describe("dimmed on the canvas = not in the LLM view", () => {
  for (const name of ["tree-00", "tree-01", "tree-02", "tree-03"]) {
    it(`${name}: at every expected leaf the undimmed entries are the entries behind the context messages`, async () => {
      const sessionId = await importFile(fixturePath(`${name}.jsonl`));
      const expected = readExpectedContexts(name);
      const leaves = Object.keys(expected.contexts);
      expect(await compareLeaves(sessionId, leaves)).toEqual([]);
      // The LLM view the comparison uses has the agent's own message count at each leaf.
      for (const leaf of leaves) {
        const view: ContextView = await h.call("context:get", { sessionId, leafId: leaf });
        expect(view.messages.length).toBe(expected.contexts[leaf]?.messages.length);
      }
    });
  }

  it("metadata, `!!` commands, unknown and omp-only types, empty branch summaries and earlier compactions are dimmed", async () => {
    const { lines, add, user, write } = sessionLines("dim-edge");
    add("bs0", null, "branch_summary", { fromId: "root", summary: "at the root" });
    user("u1", "bs0");
    add("lb", "u1", "label", { targetId: "u1", label: "first" });
    add("lbClear", "lb", "label", { targetId: "u1" });
    add("mc", "lbClear", "model_change", { model: "p/m" });
    add("tl", "mc", "thinking_level_change", { thinkingLevel: "high" });
    add("cu", "tl", "custom", { customType: "state" });
    add("bang", "cu", "message", {
      message: {
        role: "bashExecution",
        command: "ls",
        output: "x",
        exitCode: 0,
        cancelled: false,
        truncated: false,
        timestamp: 1,
        excludeFromContext: true,
      },
    });
    add("bash", "bang", "message", {
      message: {
        role: "bashExecution",
        command: "pwd",
        output: "/x",
        exitCode: 0,
        cancelled: false,
        truncated: false,
        timestamp: 1,
      },
    });
    add("mode", "bash", "mode_change", { mode: "plan" });
    add("ttsr", "mode", "ttsr_injection", { injectedRules: ["r"] });
    add("init", "ttsr", "session_init", { systemPrompt: "s", task: "t", tools: [] });
    add("unknown", "init", "weird_type", { foo: 1 });
    add("emptyBs", "unknown", "branch_summary", { fromId: "unknown", summary: "" });
    add("hidden", "emptyBs", "custom_message", { customType: "x", content: "hidden", display: false });
    user("u2", "hidden");
    add("c1", "u2", "compaction", { summary: "one", firstKeptEntryId: "u1", tokensBefore: 10 });
    user("u3", "c1");
    add("c2", "u3", "compaction", { summary: "two", firstKeptEntryId: "u2", tokensBefore: 20 });
    user("u4", "c2");
    const sessionId = await importFile(write(path.join(h.dir, "dim-edge.jsonl")));
    const ids = lines.slice(1).map((line) => (line as { id: string }).id);
    expect(await compareLeaves(sessionId, ids)).toEqual([]);
  });
});
