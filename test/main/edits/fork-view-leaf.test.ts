// A fork carries the labels of its path as fresh label entries after the path (SPEC §2.6); its
// view leaf is still the copy of the entry forked at (D14, D15), not the last of those label
// entries: the tree shows the entry, and a chat reply in the fork hangs below it.
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

describe("the view leaf of a fork with labels", () => {
  it("is the entry forked at, also after undo and redo; a reply hangs below it", async () => {
    const sessionId = (await h.call("library:import", { path: fixturePath("tree-01.jsonl") })).files[0]
      ?.sessionId as string;
    const tree = await h.call("session:tree", { sessionId });
    const entryId = tree.nodes[5]?.id as string;
    const above = tree.nodes[2]?.id as string;
    await h.call("edits:label", { sessionId, targetId: above, label: "carried" });
    const forkId = (await h.call("edits:fork", { sessionId, entryId })).forkSessionId as string;

    const fork = await h.call("session:get", { sessionId: forkId });
    expect(fork.labels[above]).toBe("carried");
    expect(fork.entries.at(-1)?.entry.type).toBe("label");
    expect(fork.summary.viewLeafId).toBe(entryId);
    expect((await h.call("session:tree", { sessionId: forkId })).viewLeafId).toBe(entryId);

    const leaf = getViewLeaf(h.api.ctx.db, forkId);
    const { entries } = appendMessageChain(h.api.ctx, { sessionId: forkId, leafId: leaf, viewLeafId: leaf }, [
      { role: "user", content: "and then?", timestamp: 1 },
    ]);
    expect(entries[0]?.parentId).toBe(entryId);

    const again = (await h.call("edits:fork", { sessionId, entryId })).forkSessionId as string;
    await h.call("edits:undo", { sessionId });
    await h.call("edits:redo", { sessionId });
    expect((await h.call("session:tree", { sessionId: again })).viewLeafId).toBe(entryId);
  });
});
