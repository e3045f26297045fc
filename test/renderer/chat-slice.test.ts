// The chat slice (renderer/src/store/chat-slice.ts) against a scripted contract: a turn sends the
// composer text from the view leaf as the session's running job (streamed text, retries) and
// reloads tree + LLM view; a threshold compaction and its failure messages are reported; a
// cancelled reply puts the text back; "No model configured" offers the settings; the
// auto-compaction events drive the status. Plus the pure helpers of the chat feature: file drops
// (desktop vs browser mode) and the theme attribute.
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { ChatTurnResultDto } from "../../core/api/dto-app.ts";

const calls: { channel: string; input: unknown }[] = [];
let chatAnswer: () => Promise<unknown> = async () => {
  throw new Error("not scripted");
};

vi.mock("../../renderer/src/api.ts", async () => {
  const { reloadScript, scriptedApi } = await import("../helpers/scripted-api.ts");
  return scriptedApi(
    {
      "chat:send": () => chatAnswer(),
      "chat:abort": () => ({ aborted: true }),
      ...reloadScript("s1", "a9"),
      "session:get": () => ({ summary: { id: "s1" }, entries: [] }),
    },
    { record: (channel, input) => calls.push({ channel, input }) },
  );
});

/** The store's chat fields this test reads (the store itself is typed with the DOM: see below). */
interface ChatState {
  composerText: string;
  selectedEntryId: string | null;
  runningJobs: Record<string, { kind: string; sessionId: string; text: string; jobId: string | null; here: boolean; chat?: unknown; retry?: string }>;
  chatMessage: { kind: "ok" | "error"; text: string; settingsLink?: boolean } | null;
  autoCompaction: { status: string; reason: string; retry?: string; errorMessage?: string; cutOff?: unknown } | null;
  sendChat(): Promise<void>;
  cancelRunning(): Promise<void>;
  jobStreamed(sessionId: string, jobId: string | null, text: string, retry?: string): void;
  autoCompactionStarted(sessionId: string, reason: "threshold" | "overflow"): void;
  autoCompactionRetry(sessionId: string, text: string | undefined): void;
  autoCompactionEnded(payload: {
    sessionId: string;
    reason: "threshold" | "overflow";
    entryId: string | null;
    aborted: boolean;
    errorMessage?: string;
    cutOff?: { purpose: "history" | "turn-prefix"; maxTokens: number }[];
  }): void;
}
// Imported through variables so the node type-check (no DOM lib) does not follow the renderer's
// store and api.ts (which use window); tsconfig.web type-checks them.
const storeModule = "../../renderer/src/store/index.ts";
const apiModule = "../../renderer/src/api.ts";
const { useCanopy } = (await import(storeModule)) as {
  useCanopy: { getState(): ChatState; setState(partial: Record<string, unknown>): void };
};
const { ApiCallError } = (await import(apiModule)) as {
  ApiCallError: new (code: string, message: string) => Error;
};
const { BROWSER_DROP_MESSAGE, dragHasFiles, planDrop } = await import("../../renderer/src/features/chat/file-drop.ts");
const { applyTheme } = await import("../../renderer/src/features/chat/theme.ts");

const turn = (extra: Partial<ChatTurnResultDto> = {}): ChatTurnResultDto => ({
  sessionId: "s1",
  userEntryId: "u1",
  assistantEntryId: "a9",
  stopReason: "stop",
  appendedEntryIds: ["u1", "a1"],
  cancelled: false,
  ...extra,
});

beforeEach(() => {
  calls.length = 0;
  useCanopy.setState({
    selectedSessionId: "s1",
    selectedEntryId: "x7",
    composerText: "Go on",
    chatMessage: null,
    autoCompaction: null,
    runningJobs: {},
    settingsOpen: false,
  });
});

describe("sending from the composer", () => {
  it("sends the text, clears the composer while streaming, then reloads at the new view leaf", async () => {
    let release: (value: unknown) => void = () => undefined;
    chatAnswer = () => new Promise((resolve) => (release = resolve));
    const sending = useCanopy.getState().sendChat();
    expect(useCanopy.getState().composerText).toBe("");
    const chat = () => useCanopy.getState().runningJobs.s1;
    expect(chat()).toMatchObject({
      kind: "chat",
      sessionId: "s1",
      chat: { userText: "Go on", continuing: false },
      text: "",
      jobId: null,
      here: true,
    });
    useCanopy.getState().jobStreamed("s1", "j1", "Hel");
    useCanopy.getState().jobStreamed("other", "j2", "ignored");
    expect(chat()?.text).toBe("Hel");
    // A transient failure: the partial reply is gone and the retry is said, until text comes again.
    useCanopy.getState().jobStreamed("s1", null, "", "The reply failed (503); retrying in 2 s (1/3)…");
    expect(chat()).toMatchObject({ text: "", retry: "The reply failed (503); retrying in 2 s (1/3)…" });
    useCanopy.getState().jobStreamed("s1", "j1", "Hello");
    expect(chat()?.text).toBe("Hello");
    expect(chat()?.retry).toBeUndefined();
    expect(Object.keys(useCanopy.getState().runningJobs)).toEqual(["s1"]);
    release(turn());
    await sending;
    expect(calls.find((c) => c.channel === "chat:send")?.input).toEqual({ sessionId: "s1", text: "Go on" });
    const state = useCanopy.getState();
    expect(state.runningJobs).toEqual({});
    expect(state.selectedEntryId).toBeNull();
    expect(state.chatMessage).toEqual({ kind: "ok", text: "Reply a9 added." });
    expect(calls.map((c) => c.channel)).toEqual(expect.arrayContaining(["session:tree", "context:get"]));
    // The tree carries what the renderer needs: every entry's JSON is never loaded.
    expect(calls.map((c) => c.channel)).not.toContain("session:get");
    // Without the agent's messages, which the page never shows (a 20 MB text would go twice),
    // and with very long texts holed (the view shows their beginning until asked); no view on
    // screen of this session to send only the new messages for (since: null).
    expect(calls.find((c) => c.channel === "context:get")?.input).toEqual({
      sessionId: "s1",
      agentMessages: false,
      holeLongTexts: true,
      since: null,
    });
  });

  it("does not send empty text or while another job runs", async () => {
    useCanopy.setState({ composerText: "   " });
    await useCanopy.getState().sendChat();
    useCanopy.setState({ composerText: "x", runningJobs: { s1: { kind: "compaction", sessionId: "s1", text: "", jobId: "j1", here: false, seen: 1 } } });
    await useCanopy.getState().sendChat();
    expect(calls.filter((c) => c.channel === "chat:send")).toHaveLength(0);
  });

  it("reports the threshold compaction, and the exact failure messages", async () => {
    chatAnswer = async () => turn({ autoCompaction: { reason: "threshold", entryId: "c1", aborted: false } });
    await useCanopy.getState().sendChat();
    expect(useCanopy.getState().chatMessage?.text).toContain("compaction c1 summarized the history");

    useCanopy.setState({ composerText: "again" });
    chatAnswer = async () =>
      turn({
        autoCompaction: { reason: "overflow", entryId: null, aborted: false, errorMessage: "Context overflow recovery failed: 500 boom" },
        stopReason: "error",
        errorMessage: "prompt is too long",
      });
    await useCanopy.getState().sendChat();
    const message = useCanopy.getState().chatMessage;
    expect(message?.kind).toBe("error");
    expect(message?.text).toContain("The reply failed: prompt is too long");
    expect(message?.text).toContain("Context overflow recovery failed: 500 boom");
  });

  // An automatic compaction whose summary stopped at the output limit was reported as a plain success.
  it("says when the automatic compaction's summary was cut off at the output limit", async () => {
    chatAnswer = async () =>
      turn({
        autoCompaction: {
          reason: "threshold",
          entryId: "c1",
          aborted: false,
          cutOff: [{ purpose: "history", maxTokens: 13107 }],
        },
      });
    await useCanopy.getState().sendChat();
    expect(useCanopy.getState().chatMessage?.text).toBe(
      "Reply a9 added. The context passed the threshold: compaction c1 summarized the history. The history summary was cut off at the output limit (13107 tokens) and saved as it came; to get it whole, undo and compact again with instructions asking for a shorter summary, or a larger compaction.reserveTokens.",
    );
    // The status line of the running turn keeps it too (from compaction:auto-ended).
    useCanopy.getState().autoCompactionEnded({
      sessionId: "s1",
      reason: "overflow",
      entryId: "c2",
      aborted: false,
      cutOff: [{ purpose: "turn-prefix", maxTokens: 8192 }],
    });
    expect(useCanopy.getState().autoCompaction?.cutOff).toEqual([{ purpose: "turn-prefix", maxTokens: 8192 }]);
  });

  it("puts the text back when the reply is cancelled; nothing else changes", async () => {
    chatAnswer = async () => {
      throw new ApiCallError("cancelled", "Chat turn cancelled");
    };
    await useCanopy.getState().sendChat();
    const state = useCanopy.getState();
    expect(state.composerText).toBe("Go on");
    expect(state.chatMessage?.text).toBe("Reply cancelled; nothing was saved. Your message is back in the composer.");
    expect(state.runningJobs).toEqual({});
  });

  it("keeps the composer empty when the turn failed only to say where its message and reply were saved", async () => {
    chatAnswer = async () => {
      throw new ApiCallError(
        "conflict",
        "Session s1 was deleted from the library (in another window or the CLI) while the reply was being written; it is saved with the session: undo the delete, or `canopy undelete`, brings both back",
      );
    };
    await useCanopy.getState().sendChat();
    const state = useCanopy.getState();
    expect(state.composerText).toBe("");
    expect(state.chatMessage).toMatchObject({ kind: "error", text: expect.stringContaining("it is saved with the session") });
  });

  it("links to the settings when no model is configured", async () => {
    chatAnswer = async () => {
      throw new ApiCallError("invalid_input", "No model configured: set one in Settings (the offline summarizer cannot chat)");
    };
    await useCanopy.getState().sendChat();
    expect(useCanopy.getState().chatMessage).toMatchObject({ kind: "error", settingsLink: true });
    expect(useCanopy.getState().composerText).toBe("Go on");
  });

  it("Escape / Cancel aborts the running turn of the open session, whichever window sent it", async () => {
    await useCanopy.getState().cancelRunning();
    expect(calls).toHaveLength(0);
    useCanopy.setState({
      runningJobs: { s1: { kind: "chat", sessionId: "s1", text: "", jobId: "j9", here: false, seen: 1, textSeen: 1 } },
    });
    await useCanopy.getState().cancelRunning();
    expect(calls).toEqual([{ channel: "chat:abort", input: { sessionId: "s1" } }]);
  });
});

describe("automatic compaction status", () => {
  it("follows started, retry and ended events of the open session", () => {
    const state = () => useCanopy.getState();
    state().autoCompactionStarted("other", "threshold");
    expect(state().autoCompaction).toBeNull();
    state().autoCompactionStarted("s1", "overflow");
    expect(state().autoCompaction).toMatchObject({ status: "running", reason: "overflow" });
    state().autoCompactionRetry("s1", "Retrying the summary (1/3) after: 503");
    expect(state().autoCompaction?.retry).toContain("1/3");
    state().autoCompactionEnded({
      sessionId: "s1",
      reason: "overflow",
      entryId: null,
      aborted: false,
      errorMessage: "Context overflow recovery failed: no model answered",
    });
    expect(state().autoCompaction).toMatchObject({
      status: "failed",
      errorMessage: "Context overflow recovery failed: no model answered",
    });
    expect(state().autoCompaction?.retry).toBeUndefined();
  });
});

describe("file drops and theme", () => {
  const file = (name: string) => ({ name }) as unknown as File;

  it("imports the paths of dropped files in the desktop app and explains browser mode", () => {
    expect(planDrop([], undefined)).toEqual({ kind: "nothing" });
    expect(planDrop([file("a.jsonl")], undefined)).toEqual({ kind: "unsupported", message: BROWSER_DROP_MESSAGE });
    const paths: Record<string, string> = { "a.jsonl": "/home/me/a.jsonl", "b.txt": "" };
    expect(planDrop([file("a.jsonl"), file("b.txt")], (f) => paths[f.name] ?? "")).toEqual({
      kind: "import",
      paths: ["/home/me/a.jsonl"],
      skipped: 1,
    });
    expect(planDrop([file("b.txt")], () => "")).toMatchObject({ kind: "unsupported" });
    expect(dragHasFiles(["text/plain", "Files"])).toBe(true);
    expect(dragHasFiles(["text/plain"])).toBe(false);
    expect(dragHasFiles(undefined)).toBe(false);
  });

  it("sets data-theme for light and dark, and removes it for system", () => {
    const attributes = new Map<string, string>();
    const root = {
      setAttribute: (name: string, value: string) => attributes.set(name, value),
      removeAttribute: (name: string) => attributes.delete(name),
    };
    applyTheme("dark", root);
    expect(attributes.get("data-theme")).toBe("dark");
    applyTheme("light", root);
    expect(attributes.get("data-theme")).toBe("light");
    applyTheme("system", root);
    expect(attributes.has("data-theme")).toBe(false);
  });
});
