// The open session's tree asked twice at once (opening it, or a prune's own refresh with the live
// refresh of its session:changed event) against the real main side: one tree request at a time,
// the second asked after the first is answered (a delta since what the first brought), never two
// whole trees; on a 100,000-entry session each one was seconds of main-side work side by side.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { SessionTreeDto } from "../../core/api/dto.ts";

const main = vi.hoisted(() => ({
  call: null as ((channel: string, input: unknown) => Promise<unknown>) | null,
  calls: [] as string[],
  open: 0,
  mostOpen: 0,
}));

vi.mock("../../renderer/src/api.ts", async () => {
  const { scriptedApi } = await import("../helpers/scripted-api.ts");
  const api = scriptedApi({});
  return {
    ...api,
    call: async (channel: string, input: unknown) => {
      main.calls.push(channel);
      if (!main.call) throw new Error("the main side is not started");
      main.open++;
      main.mostOpen = Math.max(main.mostOpen, main.open);
      try {
        // Answered on a later turn, as a transport does: a call made meanwhile overlaps it.
        await new Promise((resolve) => setTimeout(resolve, 5));
        return await main.call(channel, input);
      } finally {
        main.open--;
      }
    },
  };
});

interface TreeState {
  tree: SessionTreeDto | null;
  loadTree(sessionId: string): Promise<void>;
}
// Imported through a variable so the node type-check (no DOM lib) does not follow the store.
const storeModule = "../../renderer/src/store/index.ts";
const { useCanopy } = (await import(storeModule)) as {
  useCanopy: { getState(): TreeState; setState(partial: Record<string, unknown>): void };
};
const state = () => useCanopy.getState();

const { createApi } = await import("../../main/api/dispatch.ts");
const { createAppContext } = await import("../../main/app-context.ts");
const { fixturePath } = await import("../helpers/fixtures.ts");
const { makeTempDir } = await import("../main/store/helpers.ts");

const tmp = makeTempDir();
const file = path.join(tmp.dir, "tree-00.jsonl");
const api = createApi(
  createAppContext({ dbPath: path.join(tmp.dir, "library.db"), seedDemo: false, loadUserHooks: false }),
);
let sessionId: string;

async function mainCall(channel: string, input: unknown): Promise<unknown> {
  const result = await api.call(channel as never, input as never);
  if (!result.ok) throw new Error(`${channel}: ${result.error.message}`);
  return JSON.parse(JSON.stringify(result.value));
}

beforeAll(async () => {
  main.call = mainCall;
  fs.copyFileSync(fixturePath("tree-00.jsonl"), file);
  sessionId = ((await mainCall("library:import", { path: file })) as { files: { sessionId: string }[] })
    .files[0]?.sessionId as string;
});

afterAll(() => {
  api.ctx.db.close();
  tmp.cleanup();
});

const reset = () => {
  main.calls.length = 0;
  main.mostOpen = 0;
};

describe("the open session's tree asked twice at once", () => {
  it("opening: the whole tree once, then a delta after it", async () => {
    useCanopy.setState({ selectedSessionId: sessionId, tree: null, runningJobs: {} });
    reset();
    await Promise.all([state().loadTree(sessionId), state().loadTree(sessionId)]);
    expect(main.calls).toEqual(["session:tree", "session:tree-update"]);
    expect(main.mostOpen).toBe(1);
    expect(state().tree?.sessionId).toBe(sessionId);
  });

  it("a refresh and another one (an edit's and its event's): one request at a time, the change shown", async () => {
    const leaf = state().tree?.fileLeafId as string;
    fs.appendFileSync(
      file,
      `${JSON.stringify({ type: "message", id: "agent-next", parentId: leaf, timestamp: "2026-12-04T00:00:00.000Z", message: { role: "user", content: "and now?", timestamp: 0 } })}\n`,
    );
    await mainCall("library:import", { path: file });
    reset();
    // Three callers: the later two share the one request made after the first.
    await Promise.all([
      state().loadTree(sessionId),
      state().loadTree(sessionId),
      state().loadTree(sessionId),
    ]);
    expect(main.calls).toEqual(["session:tree-update", "session:tree-update"]);
    expect(main.mostOpen).toBe(1);
    expect(state().tree?.nodes.some((node) => node.id === "agent-next")).toBe(true);
  });
});
