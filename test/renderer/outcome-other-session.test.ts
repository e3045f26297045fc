// Work on one session that ends after the user opened another (renderer store against a scripted
// contract): a reply's, a compaction's and a branch summary's outcome line names the session it
// is about; the text of a message navigated to becomes that session's draft, never the open
// one's composer text; opening another session drops the last reply's line.
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { ChatTurnResultDto } from "../../core/api/dto-app.ts";

let answer: () => Promise<unknown> = async () => {
  throw new Error("not scripted");
};

vi.mock("../../renderer/src/api.ts", async () => {
  const { reloadScript, scriptedApi } = await import("../helpers/scripted-api.ts");
  return scriptedApi({
    "chat:send": () => answer(),
    "compaction:run": () => answer(),
    "navigation:navigate": () => answer(),
    ...reloadScript("s1", "a9"),
  });
});

interface OutcomeState {
  selectedSessionId: string | null;
  sessions: { id: string; title: string | null; firstMessage: string }[];
  composerText: string;
  drafts: Record<string, string>;
  chatMessage: { kind: "ok" | "error"; text: string } | null;
  jobMessage: { kind: "ok" | "error"; text: string } | null;
  sendChat(): Promise<void>;
  runCompaction(instructions: string): Promise<void>;
  navigateTo(targetId: string, summarize: boolean): Promise<unknown>;
  selectSession(sessionId: string | null): Promise<void>;
}
// Imported through a variable so the node type-check (no DOM lib) does not follow the store.
const storeModule = "../../renderer/src/store/index.ts";
const { useCanopy } = (await import(storeModule)) as {
  useCanopy: { getState(): OutcomeState; setState(partial: Record<string, unknown>): void };
};
const state = () => useCanopy.getState();

/** An answer the test releases once it has opened another session. */
function held(value: unknown, fails = false) {
  let release: () => void = () => undefined;
  answer = () =>
    new Promise((resolve, reject) => {
      release = () => (fails ? reject(value) : resolve(value));
    });
  return () => release();
}
/** What the user does meanwhile: opens s2 by setting what selectSession sets (no reload). */
const openOther = () => useCanopy.setState({ selectedSessionId: "s2", composerText: "", drafts: {} });

beforeEach(() => {
  useCanopy.setState({
    selectedSessionId: "s1",
    sessions: [
      { id: "s1", title: "Parser refactor", firstMessage: "refactor" },
      { id: "s2", title: null, firstMessage: "Other work" },
    ],
    composerText: "",
    drafts: {},
    chatMessage: null,
    jobMessage: null,
    runningJobs: {},
    plan: null,
  });
});

describe("an outcome that arrives after another session was opened", () => {
  it("a reply names its session", async () => {
    useCanopy.setState({ composerText: "Go on" });
    const turn: ChatTurnResultDto = {
      sessionId: "s1",
      userEntryId: "u1",
      assistantEntryId: "a9",
      stopReason: "stop",
      appendedEntryIds: ["u1", "a9"],
      cancelled: false,
    };
    const release = held(turn);
    const sending = state().sendChat();
    openOther();
    release();
    await sending;
    expect(state().chatMessage?.text).toBe("In “Parser refactor”: Reply a9 added.");
  });

  it("a compaction names its session, so does its failure", async () => {
    let release = held({ entryId: "c7" });
    let running = state().runCompaction("");
    openOther();
    release();
    await running;
    expect(state().jobMessage?.text).toMatch(/^In “Parser refactor”: Compaction c7 added/);

    useCanopy.setState({ selectedSessionId: "s1" });
    release = held(new Error("502 Bad Gateway"), true);
    running = state().runCompaction("");
    openOther();
    release();
    await running;
    expect(state().jobMessage).toEqual({ kind: "error", text: "In “Parser refactor”: Compaction failed: 502 Bad Gateway" });
  });

  it("a branch summary's message text becomes its session's draft, not the open session's composer text", async () => {
    const release = held({ newLeafId: "p1", summaryEntryId: "b1", editorText: "Fix the parser", cancelled: false });
    const moving = state().navigateTo("u5", true);
    openOther();
    release();
    await moving;
    expect(state().composerText).toBe("");
    expect(state().drafts).toEqual({ s1: "Fix the parser" });
    expect(state().jobMessage?.text).toBe(
      "In “Parser refactor”: Moved to u5's branch with branch summary b1. The message's text is in the composer.",
    );
  });

  it("a draft kept for that session is not replaced", async () => {
    const release = held({ newLeafId: "p1", summaryEntryId: "b1", editorText: "Fix the parser", cancelled: false });
    const moving = state().navigateTo("u5", true);
    useCanopy.setState({ selectedSessionId: "s2", composerText: "", drafts: { s1: "my own words" } });
    release();
    await moving;
    expect(state().drafts).toEqual({ s1: "my own words" });
    expect(state().jobMessage?.text).toContain("Your draft stays in the composer");
  });

  it("opening another session drops the last reply's line", async () => {
    useCanopy.setState({ chatMessage: { kind: "error", text: "No model configured: set one in Settings" } });
    await state().selectSession("s1");
    expect(state().chatMessage).not.toBeNull();
    await state().selectSession(null);
    expect(state().chatMessage).toBeNull();
  });
});
