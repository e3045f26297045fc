// Refreshing the open session's tree (tree slice loadTree, as the live refresh, a chat turn or an
// edit call it) against the real main side (handlers on a SQLite library in a temp folder, each
// answer through JSON as a transport sends it): the page asks session:tree-update and applies the
// delta, shows the agent's appended entry, and ends with the tree a whole session:tree gives; a
// refresh that changed no node keeps the node list, and so the canvas layout; one that only added
// nodes is noted as grown, and the canvas extends the previous layout's structure; after that, a
// view-leaf move, another session and the session opened again draw what a fresh layout draws.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { SessionTreeDto, TreeNodeDto } from "../../core/api/dto.ts";
import { layoutTree, type TreeLayout } from "../../renderer/src/features/tree/layout.ts";
import { treeStructure } from "../../renderer/src/features/tree/layout-structure.ts";
import {
  type CanvasMarks,
  computeMarks,
  entryMarks,
  modelViewOfLeaf,
} from "../../renderer/src/features/tree/marks.ts";
import { growthOf } from "../../renderer/src/features/tree/tree-growth.ts";

const main = vi.hoisted(() => ({
  call: null as ((channel: string, input: unknown) => Promise<unknown>) | null,
  calls: [] as string[],
  /** Holds the next call's answer until it resolves (two refreshes answered out of step). */
  gate: null as Promise<void> | null,
}));

vi.mock("../../renderer/src/api.ts", async () => {
  const { scriptedApi } = await import("../helpers/scripted-api.ts");
  const api = scriptedApi({});
  return {
    ...api,
    call: async (channel: string, input: unknown) => {
      main.calls.push(channel);
      if (!main.call) throw new Error("the main side is not started");
      const gate = main.gate;
      main.gate = null;
      const value = await main.call(channel, input);
      await gate;
      return value;
    },
  };
});

interface TreeState {
  tree: SessionTreeDto | null;
  selectedSessionId: string | null;
  selectedEntryId: string | null;
  loadTree(sessionId: string): Promise<void>;
}
// Imported through a variable so the node type-check (no DOM lib) does not follow the store.
const storeModule = "../../renderer/src/store/index.ts";
const selectorsModule = "../../renderer/src/features/tree/selectors.ts";
const { useCanopy } = (await import(storeModule)) as {
  useCanopy: { getState(): TreeState; setState(partial: Record<string, unknown>): void };
};
const { selectLayout, selectMarks } = (await import(selectorsModule)) as {
  selectLayout(state: TreeState): TreeLayout | null;
  selectMarks(state: TreeState): CanvasMarks | null;
};
const state = () => useCanopy.getState();

const { createApi } = await import("../../main/api/dispatch.ts");
const { createAppContext } = await import("../../main/app-context.ts");
const { loadSessionTree } = await import("../../main/library/tree-nodes.ts");
const { fixturePath } = await import("../helpers/fixtures.ts");
const { makeTempDir } = await import("../main/store/helpers.ts");

const tmp = makeTempDir();
const file = path.join(tmp.dir, "tree-00.jsonl");
const otherFile = path.join(tmp.dir, "tree-02.jsonl");
const api = createApi(
  createAppContext({ dbPath: path.join(tmp.dir, "library.db"), seedDemo: false, loadUserHooks: false }),
);
let sessionId: string;
let otherSessionId: string;

/** A contract call on the main side, its value through JSON; a failed call throws its message. */
async function mainCall(channel: string, input: unknown): Promise<unknown> {
  const result = await api.call(channel as never, input as never);
  if (!result.ok) throw new Error(`${channel}: ${result.error.message}`);
  return JSON.parse(JSON.stringify(result.value));
}

/** The tree made whole on the main side, without its version. */
const wholeTree = () => {
  const { version: _version, ...tree } = loadSessionTree(api.ctx.db, sessionId);
  return tree;
};
const shownTree = () => {
  const { version: _version, ...tree } = state().tree as SessionTreeDto;
  return JSON.parse(JSON.stringify(tree)) as typeof tree;
};

beforeAll(async () => {
  main.call = mainCall;
  fs.copyFileSync(fixturePath("tree-00.jsonl"), file);
  sessionId = ((await mainCall("library:import", { path: file })) as { files: { sessionId: string }[] })
    .files[0]?.sessionId as string;
  fs.copyFileSync(fixturePath("tree-02.jsonl"), otherFile);
  otherSessionId = (
    (await mainCall("library:import", { path: otherFile })) as { files: { sessionId: string }[] }
  ).files[0]?.sessionId as string;
  useCanopy.setState({ selectedSessionId: sessionId, tree: null, runningJobs: {} });
  await state().loadTree(sessionId);
});

/** Where each entry is drawn and its marks: the store's canvas now, or a fresh layout of its tree. */
function drawn(fresh: boolean) {
  const tree = state().tree as SessionTreeDto;
  const leafId = state().selectedEntryId ?? tree.viewLeafId;
  let layout = selectLayout(state()) as TreeLayout;
  let marks = selectMarks(state()) as CanvasMarks;
  if (fresh) {
    const nodes = JSON.parse(JSON.stringify(tree.nodes)) as TreeNodeDto[];
    layout = layoutTree(nodes, {
      filter: "default",
      viewLeafId: tree.viewLeafId,
      pinnedIds: [null, null, null],
      collapseChains: true,
      expandedIds: new Set(),
      showArchived: false,
    });
    const byId = new Map(nodes.map((node) => [node.id, node]));
    const view = modelViewOfLeaf((id) => byId.get(id), leafId);
    marks = computeMarks({ layout, leafId, plan: null, branchPreview: null, dropTargetId: null, view });
  }
  return {
    leafId,
    activePath: [...layout.activePath].sort(),
    entries: layout.entries.map((entry) => [
      entry.id,
      layout.nodeOfEntry(entry.id),
      entryMarks(marks, layout, entry.id),
    ]),
  };
}

/** Appends a user message under the file leaf and imports it (the agent's append). */
async function agentAppend(id: string, second: number): Promise<void> {
  const leaf = state().tree?.fileLeafId as string;
  fs.appendFileSync(
    file,
    `${JSON.stringify({ type: "message", id, parentId: leaf, timestamp: `2026-12-04T00:01:${String(second).padStart(2, "0")}.000Z`, message: { role: "user", content: id, timestamp: 0 } })}\n`,
  );
  await mainCall("library:import", { path: file });
}

afterAll(() => {
  api.ctx.db.close();
  tmp.cleanup();
});

describe("refreshing the open session's tree", () => {
  it("after an agent append: asks for the delta only and shows the appended entry", async () => {
    const leaf = state().tree?.fileLeafId as string;
    const before = state().tree?.nodes as TreeNodeDto[];
    selectLayout(state());
    fs.appendFileSync(
      file,
      `${JSON.stringify({ type: "message", id: "agent-next", parentId: leaf, timestamp: "2026-12-04T00:00:00.000Z", message: { role: "user", content: "and now?", timestamp: 0 } })}\n`,
    );
    await mainCall("library:import", { path: file });
    main.calls.length = 0;
    await state().loadTree(sessionId);
    expect(main.calls).toEqual(["session:tree-update"]);
    const appended = state().tree?.nodes.find((node) => node.id === "agent-next");
    expect(appended).toMatchObject({ parentId: leaf, kind: "user", text: "and now?" });
    expect(state().tree?.viewLeafId).toBe("agent-next");
    expect(shownTree()).toEqual(wholeTree());
    // The canvas extends the previous layout's structure (tree-growth.test.ts: it draws the same).
    const nodes = state().tree?.nodes as TreeNodeDto[];
    expect(growthOf(nodes)?.previous).toBe(before);
    selectLayout(state());
    expect(treeStructure(nodes, "agent-next").layers).toBe(2);
  });

  it("two refreshes at once (a chat turn's and the live one): both by delta, never the whole tree", async () => {
    const leaf = state().tree?.fileLeafId as string;
    fs.appendFileSync(
      file,
      `${JSON.stringify({ type: "message", id: "agent-again", parentId: leaf, timestamp: "2026-12-04T00:00:01.000Z", message: { role: "user", content: "twice", timestamp: 0 } })}\n`,
    );
    await mainCall("library:import", { path: file });
    main.calls.length = 0;
    // The second answer arrives after the first one is on screen.
    const first = state().loadTree(sessionId);
    let release = () => {};
    main.gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const second = state().loadTree(sessionId);
    await first;
    release();
    await second;
    expect(main.calls).toEqual(["session:tree-update", "session:tree-update"]);
    expect(state().tree?.nodes.some((node) => node.id === "agent-again")).toBe(true);
    expect(shownTree()).toEqual(wholeTree());
  });

  it("after a label: the labelled node changes in place", async () => {
    const target = state().tree?.nodes.find((node) => node.kind === "assistant")?.id as string;
    await mainCall("edits:label", { sessionId, targetId: target, label: "checked" });
    main.calls.length = 0;
    await state().loadTree(sessionId);
    expect(main.calls).toEqual(["session:tree-update"]);
    expect(state().tree?.nodes.find((node) => node.id === target)?.label).toBe("checked");
    expect(shownTree()).toEqual(wholeTree());
  });

  it("when no node changed (a rename): keeps the node list and the canvas layout", async () => {
    const nodes = state().tree?.nodes;
    const layout = selectLayout(state());
    await mainCall("edits:rename", { sessionId, title: "renamed" });
    await state().loadTree(sessionId);
    expect(state().tree?.nodes).toBe(nodes);
    expect(selectLayout(state())).toBe(layout);
    expect(state().tree?.history.undo).toBe("rename");
    expect(shownTree()).toEqual(wholeTree());
  });

  it("after a view-leaf move: the same nodes, the new leaf", async () => {
    const nodes = state().tree?.nodes;
    const target = nodes?.find((node) => node.kind === "user" && node.id !== state().tree?.viewLeafId)
      ?.id as string;
    await mainCall("session:set-view-leaf", { sessionId, leafId: target });
    await state().loadTree(sessionId);
    expect(state().tree?.nodes).toBe(nodes);
    expect(state().tree?.viewLeafId).toBe(target);
    expect(shownTree()).toEqual(wholeTree());
  });

  it("after a grown refresh, a view-leaf move elsewhere: the canvas draws what a fresh layout draws", async () => {
    useCanopy.setState({ collapseChains: true, filter: "default", selectedEntryId: null });
    drawn(false);
    await agentAppend("grown-1", 1);
    await state().loadTree(sessionId);
    const nodes = state().tree?.nodes as TreeNodeDto[];
    expect(growthOf(nodes)).toBeDefined();
    expect(drawn(false)).toEqual(drawn(true));
    const elsewhere = nodes.find((node) => node.kind === "user" && !drawn(false).activePath.includes(node.id))
      ?.id as string;
    expect(elsewhere).toBeDefined();
    await mainCall("session:set-view-leaf", { sessionId, leafId: elsewhere });
    await state().loadTree(sessionId);
    expect(state().tree?.viewLeafId).toBe(elsewhere);
    expect(drawn(false)).toEqual(drawn(true));
    // An entry selected on the canvas (its LLM view previewed) after the next append.
    useCanopy.setState({ selectedEntryId: "grown-1" });
    await agentAppend("grown-2", 2);
    await state().loadTree(sessionId);
    expect(drawn(false)).toEqual(drawn(true));
    useCanopy.setState({ selectedEntryId: null });
  });

  it("after a grown refresh, another session, then the session opened again: each drawn as fresh", async () => {
    await agentAppend("grown-3", 3);
    await state().loadTree(sessionId);
    expect(growthOf(state().tree?.nodes as TreeNodeDto[])).toBeDefined();
    drawn(false);
    useCanopy.setState({ selectedSessionId: otherSessionId, tree: null, selectedEntryId: null });
    await state().loadTree(otherSessionId);
    expect(state().tree?.sessionId).toBe(otherSessionId);
    expect(growthOf(state().tree?.nodes as TreeNodeDto[])).toBeUndefined();
    expect(drawn(false)).toEqual(drawn(true));
    // The first session changed while it was not open (an append and a view-leaf move).
    await agentAppend("grown-4", 4);
    const target = (state().tree && wholeTree().nodes.find((node) => node.kind === "user"))?.id as string;
    await mainCall("session:set-view-leaf", { sessionId, leafId: target });
    useCanopy.setState({ selectedSessionId: sessionId, tree: null });
    await state().loadTree(sessionId);
    expect(growthOf(state().tree?.nodes as TreeNodeDto[])).toBeUndefined();
    expect(state().tree?.viewLeafId).toBe(target);
    expect(drawn(false)).toEqual(drawn(true));
    expect(shownTree()).toEqual(wholeTree());
  });
});
