// D15: a label set from Canopy never moves the view leaf, also in a session whose view leaf
// follows its last entry (a fork: it has no file leaf). The label entry hangs
// below the last entry; had the view leaf followed onto it, the next chat reply would hang below
// the label too, and undoing the label would be refused ("hangs below this label").
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { getViewLeaf } from "../../../main/library/load.ts";
import { appendMessageChain } from "../../../main/pipelines/persist.ts";
import { fixturePath } from "../../helpers/fixtures.ts";
import { createHarness, type Harness, removeDir } from "../pipelines/harness.ts";

let h: Harness;
beforeEach(() => {
  h = createHarness();
});
afterEach(() => {
  h.close();
  removeDir(h.dir);
});

/** A chat turn from the view leaf, as chat:send appends it. */
function chat(sessionId: string, text: string): string {
  const leaf = getViewLeaf(h.api.ctx.db, sessionId);
  const { entries } = appendMessageChain(h.api.ctx, { sessionId, leafId: leaf, viewLeafId: leaf }, [
    { role: "user", content: text, timestamp: 1 },
  ]);
  return entries[0]?.parentId as string;
}

async function labelChatUndo(sessionId: string): Promise<void> {
  const tree = await h.call("session:tree", { sessionId });
  const before = tree.viewLeafId;
  expect(before).not.toBeNull();
  const target = tree.nodes[1]?.id as string;
  const labelled = await h.call("edits:label", { sessionId, targetId: target, label: "look here" });
  expect(labelled.viewLeafId).toBe(before);
  // The reply goes below the entry the user looks at, not below the label entry.
  expect(chat(sessionId, "and then?")).toBe(before);
  const undone = await h.call("edits:undo", { sessionId });
  expect(undone.operation).toBe("label");
  const detail = await h.call("session:get", { sessionId });
  expect(detail.labels[target]).toBeUndefined();
  expect(detail.entries.some((e) => e.entry.type === "label" && e.entry.targetId === target)).toBe(false);
  // The reply moved the view leaf onto itself; undoing the label leaves it there.
  expect(detail.summary.viewLeafId).toBe(detail.entries.at(-1)?.entry.id);
}

describe("a label where the view leaf follows the last entry (D15)", () => {
  it("in a fork: the view leaf stays, a reply goes below it, and undo removes the label", async () => {
    const sessionId = (await h.call("library:import", { path: fixturePath("tree-01.jsonl") })).files[0]
      ?.sessionId as string;
    const entryId = (await h.call("session:tree", { sessionId })).nodes[5]?.id as string;
    const forkId = (await h.call("edits:fork", { sessionId, entryId })).forkSessionId as string;
    expect((await h.call("session:get", { sessionId: forkId })).summary.fileLeafId).toBeNull();
    await labelChatUndo(forkId);
  });
});
