// Ctrl+Z / Ctrl+Shift+Z pressed while an edit or undo runs (renderer store against a scripted
// contract): before, a press made while an edit ran was dropped without a word (three quick
// presses, one undo). Each press now waits its turn and runs after the one before, in order;
// waiting presses are dropped, and the outcome line says so, when the session changed, the edit
// before them failed or a job started meanwhile — never applied to another session.
import { beforeEach, describe, expect, it, vi } from "vitest";
import { gate } from "../helpers/scripted-api.ts";

const script = vi.hoisted(() => ({
  /** Channel → promises its next answers wait for (taken in order). */
  held: new Map<string, Promise<void>[]>(),
  calls: [] as string[],
  /** A channel's next answer fails. */
  failing: new Set<string>(),
}));

vi.mock("../../renderer/src/api.ts", async () => {
  const { noModelSettings, scriptedApi } = await import("../helpers/scripted-api.ts");
  const held = async (channel: string) => {
    await script.held.get(channel)?.shift();
    if (script.failing.delete(channel)) throw new Error("the server went away");
  };
  const edit =
    (operation: string) =>
    async ({ sessionId }: { sessionId: string }) => {
      await held(operation);
      return {
        sessionId,
        operation: "label",
        viewLeafId: `${sessionId}-leaf`,
        history: { undo: "label", redo: "label" },
      };
    };
  return scriptedApi(
    {
      "session:tree": async ({ sessionId }: { sessionId: string }) => ({
        sessionId,
        version: `${sessionId}.1`,
        viewLeafId: `${sessionId}-leaf`,
        fileLeafId: `${sessionId}-leaf`,
        nodes: [],
        problems: [],
        history: { undo: "label", redo: "label" },
      }),
      "context:get": async ({ sessionId }: { sessionId: string }) => ({
        sessionId,
        leafId: `${sessionId}-leaf`,
        messages: [],
      }),
      "settings:get": noModelSettings,
      "library:list": () => [],
      "edits:undo": edit("edits:undo"),
      "edits:redo": edit("edits:redo"),
      "edits:rename": edit("edits:rename"),
      "edits:label": edit("edits:label"),
    },
    {
      record: (channel, input) => {
        if (channel.startsWith("edits:"))
          script.calls.push(`${channel} ${(input as { sessionId: string }).sessionId}`);
      },
    },
  );
});

interface State {
  selectedSessionId: string | null;
  editBusy: boolean;
  jobMessage: { kind: string; text: string } | null;
  selectSession(sessionId: string | null): Promise<void>;
  renameSession(title: string | null): Promise<unknown>;
  setLabel(targetId: string, label: string | null): Promise<unknown>;
  pressUndoRedo(direction: "undo" | "redo"): Promise<unknown>;
}
// Imported through a variable so the node type-check (no DOM lib) does not follow the store.
const storeModule = "../../renderer/src/store/index.ts";
const { useCanopy } = (await import(storeModule)) as {
  useCanopy: { getState(): State; setState(partial: Record<string, unknown>): void };
};
const state = () => useCanopy.getState();

/** The next answer on `channel` waits until the returned function is called. */
function hold(channel: string): () => void {
  const { promise, open } = gate();
  script.held.set(channel, [...(script.held.get(channel) ?? []), promise]);
  return open;
}

beforeEach(async () => {
  script.held.clear();
  script.failing.clear();
  useCanopy.setState({
    runningJobs: {},
    editBusy: false,
    lastDeleted: null,
    lastFork: null,
    jobMessage: null,
  });
  await state().selectSession("a");
  script.calls.length = 0;
});

describe("Ctrl+Z pressed while an edit runs", () => {
  it("three quick presses (undo, undo, redo) each run, in order, one after the other", async () => {
    const first = hold("edits:undo");
    const second = hold("edits:undo");
    const presses = [
      state().pressUndoRedo("undo"),
      state().pressUndoRedo("undo"),
      state().pressUndoRedo("redo"),
    ];
    // Only the first has gone to the server: the others wait their turn.
    await vi.waitFor(() => expect(script.calls).toEqual(["edits:undo a"]));
    first();
    await vi.waitFor(() => expect(script.calls).toEqual(["edits:undo a", "edits:undo a"]));
    second();
    const results = await Promise.all(presses);
    expect(script.calls).toEqual(["edits:undo a", "edits:undo a", "edits:redo a"]);
    expect(results.every((result) => result !== null)).toBe(true);
    expect(state().editBusy).toBe(false);
    expect(state().jobMessage).toEqual({ kind: "ok", text: "Redid label." });
  });

  it("a press made while a rename runs undoes once the rename is done", async () => {
    const renamed = hold("edits:rename");
    const rename = state().renameSession("New title");
    const undo = state().pressUndoRedo("undo");
    await vi.waitFor(() => expect(script.calls).toEqual(["edits:rename a"]));
    renamed();
    await rename;
    expect(await undo).not.toBeNull();
    expect(script.calls).toEqual(["edits:rename a", "edits:undo a"]);
  });

  it("another session opened meanwhile: the waiting presses are dropped, and the line says so", async () => {
    const first = hold("edits:undo");
    const presses = [
      state().pressUndoRedo("undo"),
      state().pressUndoRedo("undo"),
      state().pressUndoRedo("undo"),
    ];
    await state().selectSession("b");
    first();
    const results = await Promise.all(presses);
    expect(results.slice(1)).toEqual([null, null]);
    expect(script.calls).toEqual(["edits:undo a"]);
    expect(state().jobMessage?.text).toContain(
      "2 more Ctrl+Z presses were dropped: the open session changed meanwhile.",
    );
    expect(state().editBusy).toBe(false);
  });

  it("the undo before them failed: the waiting presses are dropped, and the line says so", async () => {
    const first = hold("edits:undo");
    script.failing.add("edits:undo");
    const presses = [state().pressUndoRedo("undo"), state().pressUndoRedo("redo")];
    first();
    expect(await Promise.all(presses)).toEqual([null, null]);
    expect(script.calls).toEqual(["edits:undo a"]);
    expect(state().jobMessage).toEqual({
      kind: "error",
      text: "Undo failed: the server went away. 1 more Ctrl+Shift+Z press was dropped: the edit before them did not go through.",
    });
  });

  it("a compaction started meanwhile: the waiting presses are dropped, and the line says so", async () => {
    const first = hold("edits:undo");
    const presses = [state().pressUndoRedo("undo"), state().pressUndoRedo("undo")];
    useCanopy.setState({
      runningJobs: {
        a: {
          kind: "compaction",
          sessionId: "a",
          text: "Compacting…",
          here: false,
          seen: 1,
          textSeen: 1,
          since: 0,
        },
      },
    });
    first();
    const results = await Promise.all(presses);
    expect(results[1]).toBeNull();
    expect(script.calls).toEqual(["edits:undo a"]);
    expect(state().jobMessage?.text).toContain("1 more Ctrl+Z press was dropped: a compaction started.");
  });
});

describe("Ctrl+Z pressed while a compaction or branch summary runs (no edit busy)", () => {
  const running = (kind: string) =>
    useCanopy.setState({
      runningJobs: { a: { kind, sessionId: "a", text: "…", here: false, seen: 1, textSeen: 1, since: 0 } },
    });

  it("does nothing, and the outcome line says why (once, however often the key repeats)", async () => {
    running("compaction");
    expect(await state().pressUndoRedo("undo")).toBeNull();
    expect(state().jobMessage).toEqual({
      kind: "error",
      text: "Ctrl+Z did nothing: a compaction is running on this session; wait for it or cancel it first (Escape).",
    });
    const shown = state().jobMessage;
    for (let i = 0; i < 5; i++) await state().pressUndoRedo("undo");
    // The same line, not a new one per repeat (nothing re-announced either).
    expect(state().jobMessage).toBe(shown);
    running("branch-summary");
    await state().pressUndoRedo("redo");
    expect(state().jobMessage?.text).toBe(
      "Ctrl+Shift+Z did nothing: a branch summary is running on this session; wait for it or cancel it first (Escape).",
    );
    expect(script.calls).toEqual([]);
  });

  it("a chat reply being written does not stop it", async () => {
    running("chat");
    expect(await state().pressUndoRedo("undo")).not.toBeNull();
    expect(script.calls).toEqual(["edits:undo a"]);
  });
});

describe("a title (or label) saved while an edit runs", () => {
  it("waits its turn, after the presses made before it, and is saved", async () => {
    const undone = hold("edits:undo");
    const undo = state().pressUndoRedo("undo");
    const rename = state().renameSession("Later title");
    await vi.waitFor(() => expect(script.calls).toEqual(["edits:undo a"]));
    undone();
    expect(await undo).not.toBeNull();
    expect(await rename).not.toBeNull();
    expect(script.calls).toEqual(["edits:undo a", "edits:rename a"]);
    expect(state().jobMessage?.text).toBe("Renamed the session “Later title”.");
  });

  it("saved all the same when the edit before it failed (it sets what was typed)", async () => {
    const undone = hold("edits:undo");
    script.failing.add("edits:undo");
    const undo = state().pressUndoRedo("undo");
    const rename = state().renameSession("Later title");
    undone();
    expect(await undo).toBeNull();
    expect(await rename).not.toBeNull();
    expect(script.calls).toEqual(["edits:undo a", "edits:rename a"]);
  });

  it("another session opened meanwhile: not saved there, and the line says so", async () => {
    const undone = hold("edits:undo");
    const presses = [state().pressUndoRedo("undo"), state().renameSession("Later title"), state().pressUndoRedo("undo")];
    await state().selectSession("b");
    undone();
    const results = await Promise.all(presses);
    expect(results.slice(1)).toEqual([null, null]);
    expect(script.calls).toEqual(["edits:undo a"]);
    expect(state().jobMessage?.text).toContain(
      "The session was not renamed “Later title”: the open session changed meanwhile. 1 more Ctrl+Z press was dropped: the open session changed meanwhile.",
    );
  });
});

describe("a title or label saved while a compaction or branch summary runs (no edit busy)", () => {
  const running = (kind: string) =>
    useCanopy.setState({
      runningJobs: { a: { kind, sessionId: "a", text: "…", here: false, seen: 1, textSeen: 1, since: 0 } },
    });

  it("is not saved, and the outcome line says why (once, however often Enter is pressed)", async () => {
    running("compaction");
    expect(await state().renameSession("New title")).toBeNull();
    expect(state().jobMessage).toEqual({
      kind: "error",
      text: "The session was not renamed “New title”: a compaction is running on this session; wait for it or cancel it first (Escape).",
    });
    const shown = state().jobMessage;
    await state().renameSession("New title");
    expect(state().jobMessage).toBe(shown);
    running("branch-summary");
    expect(await state().setLabel("e1", "keep")).toBeNull();
    expect(state().jobMessage?.text).toBe(
      "The label “keep” was not set on e1: a branch summary is running on this session; wait for it or cancel it first (Escape).",
    );
    expect(await state().setLabel("e1", null)).toBeNull();
    expect(state().jobMessage?.text).toBe(
      "The label of e1 was not cleared: a branch summary is running on this session; wait for it or cancel it first (Escape).",
    );
    expect(script.calls).toEqual([]);
  });

  it("a chat reply being written does not stop it", async () => {
    running("chat");
    expect(await state().setLabel("e1", "keep")).not.toBeNull();
    expect(script.calls).toEqual(["edits:label a"]);
  });
});
