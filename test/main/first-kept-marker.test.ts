// The first kept entry of a compaction is marked only where the model gets it: above the
// compaction. One on another branch or missing keeps nothing before the compaction (SPEC §3.1),
// and the canvas, `canopy show` and the LLM view's header say so instead of pointing at it.
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ContextView, SessionTreeDto } from "../../core/api/dto.ts";
import { renderTree } from "../../main/cli/render-tree.ts";
import { loadSessionOutline } from "../../main/library/session-outline.ts";
import { layoutTree } from "../../renderer/src/features/tree/layout.ts";
import { sessionLines } from "../helpers/entry-lines.ts";
import { createHarness, type Harness, removeDir } from "./pipelines/harness.ts";

let h: Harness;
let sessionId: string;

/**
 * u1 ─ a1 ─ u2 ─ c1 (keeps from x1, another branch) ─ u3 ─ c2 (keeps from "gone") ─ u4 ─ c3 (keeps from u3) ─ u5
 *        └─ x1 ─ c4 (keeps from itself: nothing before it)
 */
function writeSession(): string {
  const { add, user, write } = sessionLines("kept-1");
  const compaction = (id: string, parentId: string, firstKeptEntryId: string) =>
    add(id, parentId, "compaction", { summary: `summary ${id}`, firstKeptEntryId, tokensBefore: 100 });
  user("u1", null);
  add("a1", "u1", "message", {
    message: { role: "assistant", content: [{ type: "text", text: "a1" }], stopReason: "stop", timestamp: 2 },
  });
  user("u2", "a1");
  compaction("c1", "u2", "x1");
  user("u3", "c1");
  compaction("c2", "u3", "gone");
  user("u4", "c2");
  compaction("c3", "u4", "u3");
  user("u5", "c3");
  user("x1", "a1");
  compaction("c4", "x1", "c4");
  return write(path.join(h.dir, "kept.jsonl"));
}

beforeAll(async () => {
  h = createHarness();
  const report = await h.call("library:import", { path: writeSession() });
  sessionId = report.files[0]?.sessionId as string;
});
afterAll(() => {
  h.close();
  removeDir(h.dir);
});

describe("first kept markers", () => {
  it("the canvas marks a first kept entry only for compactions below it", async () => {
    const tree: SessionTreeDto = await h.call("session:tree", { sessionId });
    const layout = layoutTree(tree.nodes, { filter: "all", viewLeafId: "u5", collapseChains: false });
    expect(Object.fromEntries(layout.firstKeptBy)).toEqual({ u3: ["c3"] });
  });

  it("canopy show says why a compaction keeps nothing before it, and marks only real first kept entries", async () => {
    const lines = renderTree(loadSessionOutline(h.api.ctx.db, sessionId)).split("\n");
    const line = (id: string) => lines.find((text) => new RegExp(`^..[│├─ ]*${id} `).test(text)) ?? "";
    expect(line("c1")).toContain("first kept x1 (not on its path: keeps nothing before it)");
    expect(line("c2")).toContain("first kept gone (no such entry: keeps nothing before it)");
    expect(line("c3")).toMatch(/first kept u3\]$/);
    expect(line("c4")).toContain("first kept c4 (not on its path: keeps nothing before it)");
    expect(line("u3")).toContain("[first kept by c3]");
    expect(line("x1")).not.toContain("first kept by");
  });

  it("the LLM view names no first kept entry when the compaction in effect keeps nothing before it", async () => {
    const at = async (leafId: string): Promise<ContextView> => h.call("context:get", { sessionId, leafId });
    expect(await at("u3")).toMatchObject({ compactionId: "c1", firstKeptEntryId: null });
    expect(await at("u4")).toMatchObject({ compactionId: "c2", firstKeptEntryId: null });
    expect(await at("u5")).toMatchObject({ compactionId: "c3", firstKeptEntryId: "u3" });
  });
});
