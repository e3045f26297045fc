// The composer keeps one draft per session (library and session slices, against a scripted
// contract): opening another session puts the draft aside and shows that session's own, so text
// typed for one session is never sent to another; a failed send goes back to its own session.
import { beforeEach, describe, expect, it, vi } from "vitest";

let failChat: ((value: never) => void) | null = null;

vi.mock("../../renderer/src/api.ts", async () => {
  const { ApiCallError, noModelSettings, scriptedApi } = await import("../helpers/scripted-api.ts");
  return scriptedApi({
    "session:tree": (input: { sessionId: string }) => ({
      sessionId: input.sessionId,
      viewLeafId: null,
      nodes: [],
      problems: [],
    }),
    "context:get": (input: { sessionId: string }) => ({
      sessionId: input.sessionId,
      leafId: null,
      messages: [],
    }),
    "settings:get": noModelSettings,
    "chat:send": () =>
      new Promise((_resolve, reject) => {
        failChat = () => reject(new ApiCallError("model_error", "503 Service Unavailable"));
      }),
  });
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
