// The composer keeps one draft per session (library and session slices, against a scripted
// contract): opening another session puts the draft aside and shows that session's own, so text
// typed for one session is never sent to another; a failed send goes back to its own session.
import { beforeEach, describe, expect, it, vi } from "vitest";

let failChat: ((value: never) => void) | null = null;

vi.mock("../../renderer/src/api.ts", () => {
  class ApiCallError extends Error {
    readonly code: string;
    constructor(code: string, message: string) {
      super(message);
      this.code = code;
    }
  }
  return {
    ApiCallError,
    transport: "browser",
    onEvent: () => () => undefined,
    call: async (channel: string, input: { sessionId?: string }) => {
      if (channel === "session:tree")
        return { sessionId: input.sessionId, viewLeafId: null, nodes: [], problems: [] };
      if (channel === "context:get") return { sessionId: input.sessionId, leafId: null, messages: [] };
      if (channel === "settings:get")
        return { model: null, compaction: { reserveTokens: 16384, enabled: true } };
      if (channel === "chat:send")
        return new Promise((_resolve, reject) => {
          failChat = () => reject(new ApiCallError("model_error", "503 Service Unavailable"));
        });
      throw new Error(`unexpected ${channel}`);
    },
  };
});

interface DraftState {
  composerText: string;
  selectedSessionId: string | null;
  setComposerText(text: string): void;
  selectSession(sessionId: string | null): Promise<void>;
  sendChat(): Promise<void>;
}
// Imported through a variable so the node type-check (no DOM lib) does not follow the store.
const storeModule = "../../renderer/src/store/index.ts";
const { useCanopy } = (await import(storeModule)) as {
  useCanopy: { getState(): DraftState; setState(partial: Record<string, unknown>): void };
};
const state = () => useCanopy.getState();

beforeEach(async () => {
  useCanopy.setState({ selectedSessionId: null, composerText: "", drafts: {}, runningJobs: {} });
  await state().selectSession("a");
});

describe("composer drafts", () => {
  it("opening another session shows its own draft; coming back brings the first one back", async () => {
    state().setComposerText("for session a");
    await state().selectSession("b");
    expect(state().composerText).toBe("");
    state().setComposerText("for session b");
    await state().selectSession("a");
    expect(state().composerText).toBe("for session a");
    await state().selectSession("b");
    expect(state().composerText).toBe("for session b");
    await state().selectSession(null);
    expect(state().composerText).toBe("");
  });

  it("a send that fails after the user opened another session goes back to its own session's draft", async () => {
    state().setComposerText("question for a");
    const sending = state().sendChat();
    expect(state().composerText).toBe("");
    await state().selectSession("b");
    state().setComposerText("typing for b");
    failChat?.(undefined as never);
    await sending;
    expect(state().composerText).toBe("typing for b");
    await state().selectSession("a");
    expect(state().composerText).toBe("question for a");
  });
});
