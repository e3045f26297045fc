// The LLM view moving to a neighbouring entry: the page names the answer it holds (`since`) and
// context:get sends only the messages past the start the two views share (`messagesFrom`); the
// page puts the whole view back together from the one on screen.
import { beforeEach, describe, expect, it, vi } from "vitest";

const calls = vi.hoisted(() => [] as { leafId?: string | null; since?: string | null }[]);

vi.mock("../../renderer/src/api.ts", async () => {
  const { noModelSettings, scriptedApi } = await import("../helpers/scripted-api.ts");
  const text = (t: string) => ({ role: "user", content: t, timestamp: 1 });
  return scriptedApi({
    "session:tree": ({ sessionId }: { sessionId: string }) => ({
      sessionId,
      version: `${sessionId}.1`,
      viewLeafId: "c",
      fileLeafId: "c",
      nodes: [],
      problems: [],
      history: { undo: null, redo: null },
    }),
    "context:get": (input: { sessionId: string; leafId?: string | null; since?: string | null }) => {
      calls.push({ leafId: input.leafId, since: input.since });
      const leafId = input.leafId ?? "c";
      const base = { sessionId: input.sessionId, leafId, messageEntryIds: [], messageTokens: [] };
      // The view leaf c: a, b, c; its parent b: a, b (all but c shared with c's answer "c1").
      if (leafId === "b" && input.since === "c1")
        return { ...base, messages: [], messagesFrom: 2, answerId: "b1", textHoles: [] };
      if (leafId === "b") return { ...base, messages: [text("a"), text("b")], answerId: "b1", textHoles: [] };
      return {
        ...base,
        messages: [text("a"), text("b"), text("c")],
        answerId: "c1",
        textHoles: [{ messageIndex: 0, block: null, hole: { at: 1 } }],
      };
    },
    "settings:get": noModelSettings,
    "library:list": () => [],
  });
});

interface State {
  context: { leafId: string | null; messages: { content: string }[]; textHoles?: unknown[] } | null;
  selectSession(sessionId: string | null): Promise<void>;
  selectEntry(entryId: string | null): Promise<void>;
}
// Imported through a variable so the node type-check (no DOM lib) does not follow the store.
const storeModule = "../../renderer/src/store/index.ts";
const { useCanopy } = (await import(storeModule)) as { useCanopy: { getState(): State } };
const state = () => useCanopy.getState();

beforeEach(() => {
  calls.length = 0;
});

describe("the LLM view sent only the messages it does not hold", () => {
  it("asks since the answer on screen and shows the whole view of the new entry", async () => {
    await state().selectSession("s");
    expect(calls).toEqual([{ leafId: undefined, since: null }]);
    expect(state().context?.messages.map((m) => m.content)).toEqual(["a", "b", "c"]);
    await state().selectEntry("b");
    expect(calls.at(-1)).toEqual({ leafId: "b", since: "c1" });
    expect(state().context?.leafId).toBe("b");
    expect(state().context?.messages.map((m) => m.content)).toEqual(["a", "b"]);
    // The holes of the shared messages come along.
    expect(state().context?.textHoles).toEqual([{ messageIndex: 0, block: null, hole: { at: 1 } }]);
  });
});
