// A control unavailable while a job runs on the open session, used anyway (a click on the
// aria-disabled Fork, Archive, Undo, Compact…, Prune…; Ctrl+Enter in the composer): before, it did
// nothing without a word. refuseDuringJob (jobs-slice, refused-line.ts) puts one line saying what did
// nothing and why on the outcome line, leaves it as it is when used again (not stacked), and says
// nothing when no job runs there (another session's job does not count).
import { beforeEach, describe, expect, it, vi } from "vitest";

vi.mock("../../renderer/src/api.ts", async () => {
  const { reloadScript, scriptedApi } = await import("../helpers/scripted-api.ts");
  return scriptedApi({ ...reloadScript("s1", "v1") });
});

interface State {
  selectedSessionId: string | null;
  runningJobs: Record<string, unknown>;
  jobMessage: { kind: "ok" | "error"; text: string } | null;
  refuseDuringJob(what: string): boolean;
}
// Imported through a variable so the node type-check (no DOM lib) does not follow the store.
const storeModule = "../../renderer/src/store/index.ts";
const { useCanopy } = (await import(storeModule)) as {
  useCanopy: {
    getState(): State;
    setState(partial: Record<string, unknown>): void;
    subscribe(listener: () => void): () => void;
  };
};
const state = () => useCanopy.getState();
const job = (sessionId: string, kind: string) => ({ kind, sessionId, jobId: "j1", text: "", here: false });

beforeEach(() => {
  useCanopy.setState({ selectedSessionId: "s1", runningJobs: {}, jobMessage: null });
});

describe("refuseDuringJob", () => {
  it("says what did nothing and why, once however often it is used", () => {
    useCanopy.setState({ runningJobs: { s1: job("s1", "branch-summary") } });
    let sets = 0;
    const off = useCanopy.subscribe(() => sets++);
    expect(state().refuseDuringJob("Fork to new session did nothing")).toBe(true);
    expect(state().jobMessage).toEqual({
      kind: "error",
      text: "Fork to new session did nothing: a branch summary is running on this session; wait for it or cancel it first (Escape).",
    });
    expect(state().refuseDuringJob("Fork to new session did nothing")).toBe(true);
    off();
    expect(sets).toBe(1);
    // Another control: its own line replaces it.
    state().refuseDuringJob("Undo did nothing");
    expect(state().jobMessage?.text).toMatch(/^Undo did nothing: a branch summary is running/);
  });

  it("names the job: a compaction, a chat reply", () => {
    useCanopy.setState({ runningJobs: { s1: job("s1", "compaction") } });
    state().refuseDuringJob("Compact… did nothing");
    expect(state().jobMessage?.text).toBe(
      "Compact… did nothing: a compaction is running on this session; wait for it or cancel it first (Escape).",
    );
    useCanopy.setState({ runningJobs: { s1: job("s1", "chat") } });
    state().refuseDuringJob("Ctrl+Enter sent nothing");
    expect(state().jobMessage?.text).toBe(
      "Ctrl+Enter sent nothing: a reply is being written on this session; wait for it or cancel it first (Escape).",
    );
  });

  it("does nothing when no job runs on the open session", () => {
    useCanopy.setState({ runningJobs: { s2: job("s2", "compaction") }, jobMessage: { kind: "ok", text: "Labelled u1." } });
    expect(state().refuseDuringJob("Fork to new session did nothing")).toBe(false);
    expect(state().jobMessage).toEqual({ kind: "ok", text: "Labelled u1." });
  });
});
