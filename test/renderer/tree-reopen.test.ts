// Opening again the session shown before the one open now, against the real main side: the
// window asks only what changed since the tree it showed (session:tree-update), not the whole
// tree again (30 MB and seconds on a 100,000-entry session), and shows what a fresh
// session:tree answers, changes made meanwhile included.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { SessionTreeDto } from "../../core/api/dto.ts";

const main = vi.hoisted(() => ({
  call: null as ((channel: string, input: unknown) => Promise<unknown>) | null,
  calls: [] as string[],
}));

vi.mock("../../renderer/src/api.ts", async () => {
  const { scriptedApi } = await import("../helpers/scripted-api.ts");
  return {
    ...scriptedApi({}),
    call: async (channel: string, input: unknown) => {
      main.calls.push(channel);
      if (!main.call) throw new Error("the main side is not started");
      return main.call(channel, input);
    },
  };
});

interface ReopenState {
  tree: SessionTreeDto | null;
  keptTrees: readonly SessionTreeDto[];
  selectSession(sessionId: string): Promise<void>;
}
// Imported through a variable so the node type-check (no DOM lib) does not follow the store.
const storeModule = "../../renderer/src/store/index.ts";
const { useCanopy } = (await import(storeModule)) as {
  useCanopy: { getState(): ReopenState; setState(partial: Record<string, unknown>): void };
};
const state = () => useCanopy.getState();

const { createApi } = await import("../../main/api/dispatch.ts");
const { createAppContext } = await import("../../main/app-context.ts");
const { fixturePath } = await import("../helpers/fixtures.ts");
const { makeTempDir } = await import("../main/store/helpers.ts");

const tmp = makeTempDir();
const api = createApi(
  createAppContext({ dbPath: path.join(tmp.dir, "library.db"), seedDemo: false, loadUserHooks: false }),
);
let first: string;
let second: string;

async function mainCall(channel: string, input: unknown): Promise<unknown> {
  const result = await api.call(channel as never, input as never);
  if (!result.ok) throw new Error(`${channel}: ${result.error.message}`);
  return JSON.parse(JSON.stringify(result.value));
}

async function importFixture(name: string): Promise<string> {
  const file = path.join(tmp.dir, name);
  fs.copyFileSync(fixturePath(name), file);
  const report = (await mainCall("library:import", { path: file })) as { files: { sessionId: string }[] };
  return report.files[0]?.sessionId as string;
}

beforeAll(async () => {
  main.call = mainCall;
  first = await importFixture("tree-00.jsonl");
  second = await importFixture("tree-02.jsonl");
});

afterAll(() => {
  api.ctx.db.close();
  tmp.cleanup();
});

const treeCalls = () => main.calls.filter((channel) => channel.startsWith("session:tree"));
const fresh = async (sessionId: string) => {
  const tree = (await mainCall("session:tree", { sessionId })) as SessionTreeDto;
  return { nodes: tree.nodes, viewLeafId: tree.viewLeafId, history: tree.history };
};
const shown = () => {
  const tree = state().tree;
  return { nodes: tree?.nodes, viewLeafId: tree?.viewLeafId, history: tree?.history };
};

describe("opening again the session shown before", () => {
  it("asks only what changed since its tree, and shows the same tree a fresh open does", async () => {
    useCanopy.setState({ selectedSessionId: null, tree: null, keptTrees: [], runningJobs: {} });
    await state().selectSession(first);
    const firstNodes = state().tree?.nodes;
    await state().selectSession(second);
    expect(state().keptTrees.map((tree) => tree.sessionId)).toEqual([first]);
    main.calls.length = 0;
    await state().selectSession(first);
    expect(treeCalls()).toEqual(["session:tree-update"]);
    expect(shown()).toEqual(await fresh(first));
    // Nothing changed: the very node list it had, so what is cached on it is found again.
    expect(state().tree?.nodes).toBe(firstNodes);
    // The one left is kept in its place: back and forth between two, each asks only a delta.
    expect(state().keptTrees.map((tree) => tree.sessionId)).toEqual([second]);
    main.calls.length = 0;
    await state().selectSession(second);
    expect(treeCalls()).toEqual(["session:tree-update"]);
    expect(shown()).toEqual(await fresh(second));
  });

  it("shows what changed in it meanwhile", async () => {
    await state().selectSession(first);
    await state().selectSession(second);
    const target = state().keptTrees[0]?.nodes[2]?.id as string;
    await mainCall("edits:label", { sessionId: first, targetId: target, label: "changed meanwhile" });
    main.calls.length = 0;
    await state().selectSession(first);
    expect(treeCalls()).toEqual(["session:tree-update"]);
    expect(shown()).toEqual(await fresh(first));
    expect(state().tree?.nodes.find((node) => node.id === target)?.label).toBe("changed meanwhile");
  });
});
