// A refresh that finishes after the user opened another session (an edit's or a job's: Redo on
// session A answered late, once B was open) must not take the LLM view, the tree or the
// selected entry from B:
// before, its loadContext(A) counted as the latest request, so B's answer was dropped and B's
// LLM view stayed "Loading…" (and its tree panel could say "Fetching A") until something loaded
// it again (test/e2e/edits-qa.test.ts failed this way when opening a session after a Redo).
import { beforeEach, describe, expect, it, vi } from "vitest";
import { gate } from "../helpers/scripted-api.ts";

const gates = vi.hoisted(() => ({
  /** Channel → the promise its next answer waits for (taken once). */
  held: new Map<string, Promise<void>>(),
  calls: [] as string[],
}));

vi.mock("../../renderer/src/api.ts", async () => {
  const { noModelSettings, scriptedApi } = await import("../helpers/scripted-api.ts");
  const leafOf = (sessionId: string) => `${sessionId}-leaf`;
  const held = async (channel: string) => {
    const gate = gates.held.get(channel);
    gates.held.delete(channel);
    await gate;
  };
  return scriptedApi(
    {
      "session:tree": async ({ sessionId }: { sessionId: string }) => {
        await held(`session:tree ${sessionId}`);
        return {
          sessionId,
          version: `${sessionId}.1`,
          viewLeafId: leafOf(sessionId),
          fileLeafId: leafOf(sessionId),
          nodes: [],
          problems: [],
          history: { undo: null, redo: null },
        };
      },
      "context:get": async ({ sessionId }: { sessionId: string }) => {
        await held(`context:get ${sessionId}`);
        return { sessionId, leafId: leafOf(sessionId), messages: [] };
      },
      "settings:get": noModelSettings,
      "library:list": () => [],
      "edits:redo": async ({ sessionId }: { sessionId: string }) => {
        await held("edits:redo");
        return { sessionId, operation: "label", viewLeafId: leafOf(sessionId) };
      },
    },
    {
      record: (channel, input) =>
        gates.calls.push(`${channel} ${(input as { sessionId?: string }).sessionId ?? ""}`),
    },
  );
});

interface State {
  selectedSessionId: string | null;
  selectedEntryId: string | null;
  tree: { sessionId: string } | null;
  treeLoad: { sessionId: string } | null;
  context: { sessionId: string; leafId: string | null } | null;
  contextLoading: boolean;
  selectSession(sessionId: string | null): Promise<void>;
  redoEdit(): Promise<unknown>;
}
// Imported through a variable so the node type-check (no DOM lib) does not follow the store.
const storeModule = "../../renderer/src/store/index.ts";
const { useCanopy } = (await import(storeModule)) as {
  useCanopy: { getState(): State; setState(partial: Record<string, unknown>): void };
};
const state = () => useCanopy.getState();

beforeEach(async () => {
  gates.held.clear();
  useCanopy.setState({ runningJobs: {}, editBusy: false, lastDeleted: null, lastFork: null });
  await state().selectSession("a");
  gates.calls.length = 0;
});

describe("a refresh of a session left meanwhile", () => {
  it("Redo on A answered after B was opened: B's LLM view and tree arrive, A's refresh takes nothing", async () => {
    const redo = gate();
    const bContext = gate();
    gates.held.set("edits:redo", redo.promise);
    gates.held.set("context:get b", bContext.promise);
    const redone = state().redoEdit();
    // The user opens B while the redo is on its way; B's LLM view is slower than the redo.
    const opened = state().selectSession("b");
    // An entry of B selected on its canvas meanwhile: A's refresh must not select for B.
    useCanopy.setState({ selectedEntryId: "b-entry" });
    redo.open();
    await redone;
    bContext.open();
    await opened;
    expect(state().selectedSessionId).toBe("b");
    expect(state().context).toMatchObject({ sessionId: "b", leafId: "b-leaf" });
    expect(state().contextLoading).toBe(false);
    expect(state().selectedEntryId).toBe("b-entry");
    expect(state().tree?.sessionId).toBe("b");
    expect(state().treeLoad).toBeNull();
    // Nothing is fetched for A once B is open.
    expect(gates.calls.filter((call) => call.endsWith(" a"))).toEqual(["edits:redo a"]);
  });
});
