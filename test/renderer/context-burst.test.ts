// Arrow moves in the tree of a long session (a held key selects a new entry every 30–90 ms): the
// LLM view's context:get takes seconds there, and each move asked for one, so the answers for
// the entries passed over queued up on the serving thread and the view showed the final entry
// only after all of them. Now only the newest selection is fetched, one fetch at a time, once a
// burst stops; a lone selection, or one after the last answer came, is still fetched at once.
import { beforeEach, describe, expect, it, vi } from "vitest";
import { gate } from "../helpers/scripted-api.ts";

const gates = vi.hoisted(() => ({
  /** Leaf → the promise its next context:get answer waits for (taken once). */
  held: new Map<string, Promise<void>>(),
  /** The leaves context:get was asked for, in order. */
  asked: [] as string[],
}));

vi.mock("../../renderer/src/api.ts", async () => {
  const { noModelSettings, scriptedApi } = await import("../helpers/scripted-api.ts");
  return scriptedApi({
    "session:tree": ({ sessionId }: { sessionId: string }) => ({
      sessionId,
      version: `${sessionId}.1`,
      viewLeafId: "leaf",
      fileLeafId: "leaf",
      nodes: [],
      problems: [],
      history: { undo: null, redo: null },
    }),
    "context:get": async ({ sessionId, leafId }: { sessionId: string; leafId?: string | null }) => {
      const leaf = leafId ?? "leaf";
      gates.asked.push(leaf);
      const gate = gates.held.get(leaf);
      gates.held.delete(leaf);
      await gate;
      return { sessionId, leafId: leaf, messages: [] };
    },
    "settings:get": noModelSettings,
    "library:list": () => [],
  });
});

interface State {
  selectedEntryId: string | null;
  context: { sessionId: string; leafId: string | null } | null;
  contextLoading: boolean;
  selectSession(sessionId: string | null): Promise<void>;
  selectEntry(entryId: string | null): Promise<void>;
}
// Imported through a variable so the node type-check (no DOM lib) does not follow the store.
const storeModule = "../../renderer/src/store/index.ts";
const { useCanopy } = (await import(storeModule)) as { useCanopy: { getState(): State } };
const { CONTEXT_SETTLE_MS } = (await import("../../renderer/src/store/llm-view-slice.ts")) as {
  CONTEXT_SETTLE_MS: number;
};
const state = () => useCanopy.getState();
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeEach(async () => {
  gates.held.clear();
  await state().selectSession("s");
  // Whatever came before is over: the next selection is not part of a burst.
  await pause(CONTEXT_SETTLE_MS + 20);
  gates.asked.length = 0;
});

describe("the LLM view following a burst of selections", () => {
  it("a held arrow key: one fetch for the first entry, one for the final one, none in between", async () => {
    const first = gate();
    gates.held.set("e0", first.promise);
    const moves = [state().selectEntry("e0")];
    // The first answer takes long (a long path); the key repeats meanwhile.
    for (let i = 1; i <= 20; i++) {
      await pause(5);
      moves.push(state().selectEntry(`e${i}`));
    }
    expect(gates.asked).toEqual(["e0"]);
    first.open();
    await Promise.all(moves);
    expect(gates.asked).toEqual(["e0", "e20"]);
    expect(state().context).toMatchObject({ sessionId: "s", leafId: "e20" });
    expect(state().contextLoading).toBe(false);
  });

  it("a burst while nothing is fetched: the newest entry only, once the burst stops", async () => {
    const moves = [state().selectEntry("a0")];
    for (let i = 1; i <= 10; i++) moves.push(state().selectEntry(`a${i}`));
    await Promise.all(moves);
    expect(gates.asked).toEqual(["a0", "a10"]);
    expect(state().context).toMatchObject({ leafId: "a10" });
    expect(state().contextLoading).toBe(false);
  });

  it("a lone selection is fetched at once, without waiting for the burst time", async () => {
    const move = state().selectEntry("x");
    expect(gates.asked).toEqual(["x"]);
    await move;
    expect(state().context).toMatchObject({ leafId: "x" });
  });

  it("quick selections whose answers came back already are each fetched at once", async () => {
    await state().selectEntry("q1");
    // Well inside the burst time, but nothing is on its way: not held back.
    const next = state().selectEntry("q2");
    expect(gates.asked).toEqual(["q1", "q2"]);
    await next;
    expect(state().context).toMatchObject({ leafId: "q2" });
  });

  it("back to the view leaf while an older answer is on its way: the view leaf's context shows", async () => {
    const slow = gate();
    gates.held.set("y", slow.promise);
    const moves = [state().selectEntry("y"), state().selectEntry(null)];
    slow.open();
    await Promise.all(moves);
    expect(state().selectedEntryId).toBeNull();
    expect(state().context).toMatchObject({ leafId: "leaf" });
    expect(gates.asked).toEqual(["y", "leaf"]);
  });
});
