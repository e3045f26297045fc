// Opening a session's tree: once the answer is in, what the first render of the tree needs (the
// lookups, the structure walk, the layout…) is made ahead in tasks of its own, the page getting
// turns in between, and the render that shows the tree lays nothing out again. On a
// 100,000-entry session all of it ran in the one task of that render: the page froze 350-670 ms.
import { describe, expect, it, vi } from "vitest";
import type { SessionTreeDto, TreeNodeDto } from "../../core/api/dto.ts";

const answer = vi.hoisted(() => ({ tree: null as unknown }));

vi.mock("../../renderer/src/api.ts", async () => {
  const { scriptedApi } = await import("../helpers/scripted-api.ts");
  return scriptedApi({ "session:tree": () => answer.tree });
});

interface OpenState {
  tree: SessionTreeDto | null;
  treeLoad: { stage: string } | null;
  loadTree(sessionId: string): Promise<void>;
}
// Imported through a variable so the node type-check (no DOM lib) does not follow the store.
const storeModule = "../../renderer/src/store/index.ts";
const { useCanopy } = (await import(storeModule)) as {
  useCanopy: {
    getState(): OpenState;
    setState(partial: Record<string, unknown>): void;
    subscribe(listener: (state: OpenState) => void): () => void;
  };
};
const selectorsModule = "../../renderer/src/features/tree/selectors.ts";
const { selectLayout } = (await import(selectorsModule)) as { selectLayout(state: OpenState): unknown };
const { fullLayoutsMade } = await import("../../renderer/src/features/tree/layout.ts");

/** A path of `count` entries with a side branch every 50 (chains to collapse, forks to place). */
function bigTree(sessionId: string, count: number): SessionTreeDto {
  const nodes: TreeNodeDto[] = [];
  const node = (id: string, parentId: string | null, k: number, kind: string): TreeNodeDto => ({
    id,
    parentId,
    line: k + 2,
    type: "message",
    kind,
    text: `entry ${k}`,
    tokens: 10,
    timestamp: new Date(Date.UTC(2026, 0, 1) + k * 1000).toISOString(),
  });
  let parent: string | null = null;
  for (let k = 0; k < count; k++) {
    const id = `e${k}`;
    nodes.push(node(id, parent, k, k % 2 === 0 ? "user" : "assistant"));
    if (k % 50 === 25) nodes.push(node(`side${k}`, parent, k, "user"));
    parent = id;
  }
  return {
    sessionId,
    nodes,
    viewLeafId: parent,
    fileLeafId: parent,
    problems: [],
    history: { undo: null, redo: null },
  };
}

describe("opening a big session's tree", () => {
  it("lays it out in tasks of its own before the render that shows it, which lays out nothing", async () => {
    const sessionId = "big";
    answer.tree = bigTree(sessionId, 5000);
    useCanopy.setState({ selectedSessionId: sessionId, tree: null, treeLoad: null, runningJobs: {} });
    // A turn the page asks for once the answer is in (input, a paint): it must come before the
    // tree is shown, not after all of the work.
    let turnBeforeShown: boolean | null = null;
    const unsubscribe = useCanopy.subscribe((state) => {
      if (state.treeLoad?.stage !== "laying-out" || turnBeforeShown !== null) return;
      turnBeforeShown = false;
      setTimeout(() => {
        turnBeforeShown = useCanopy.getState().tree === null;
      }, 0);
    });
    const layoutsBefore = fullLayoutsMade();
    await useCanopy.getState().loadTree(sessionId);
    unsubscribe();
    expect(useCanopy.getState().tree?.nodes.length).toBe(5100);
    expect(turnBeforeShown).toBe(true);
    const layoutsAhead = fullLayoutsMade() - layoutsBefore;
    expect(layoutsAhead).toBe(1);
    // The canvas's first render: the layout made ahead, no walk of every entry again.
    expect(selectLayout(useCanopy.getState())).not.toBeNull();
    expect(fullLayoutsMade() - layoutsBefore).toBe(1);
  });
});
