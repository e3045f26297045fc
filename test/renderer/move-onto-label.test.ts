// Moving the view leaf onto a label entry (one Canopy wrote hangs below the file's last entry,
// whichever entry it labels), against a scripted contract: before, the outcome line said only
// "Moved to <the label entry's id>." — not which entry that is nor where the view leaf now is in
// the conversation (the LLM view ends with the entry the label hangs below, not with the entry
// labelled), where every other move's line says where it went. It now says both.
import { beforeEach, describe, expect, it, vi } from "vitest";

const nodes = [
  { id: "u1", parentId: null, type: "message", kind: "user", text: "Question", line: 1, tokens: 1, timestamp: "" },
  { id: "a1", parentId: "u1", type: "message", kind: "assistant", text: "Answer", line: 2, tokens: 1, timestamp: "" },
  { id: "a2", parentId: "a1", type: "message", kind: "assistant", text: "More", line: 3, tokens: 1, timestamp: "" },
  { id: "l9", parentId: "a2", type: "label", kind: "label", text: "a1 = keep", line: 4, tokens: 0, timestamp: "" },
];

vi.mock("../../renderer/src/api.ts", async () => {
  const { reloadScript, scriptedApi } = await import("../helpers/scripted-api.ts");
  return scriptedApi({
    ...reloadScript("s1", "l9"),
    "navigation:navigate": ({ targetId }: { targetId: string }) => ({
      cancelled: false,
      aborted: false,
      newLeafId: targetId,
      oldLeafId: "u1",
      editorText: null,
      summaryEntryId: null,
      fromExtension: false,
    }),
  });
});

interface State {
  jobMessage: { kind: string; text: string } | null;
  navigateTo(targetId: string, summarize: boolean): Promise<unknown>;
}
// Imported through a variable so the node type-check (no DOM lib) does not follow the store.
const storeModule = "../../renderer/src/store/index.ts";
const { useCanopy } = (await import(storeModule)) as {
  useCanopy: { getState(): State; setState(partial: Record<string, unknown>): void };
};

beforeEach(() => {
  useCanopy.setState({
    selectedSessionId: "s1",
    tree: { sessionId: "s1", viewLeafId: "u1", nodes, problems: [] },
    runningJobs: {},
    jobMessage: null,
  });
});

describe("moving the view leaf onto a label entry", () => {
  it("the line says it is a label entry, of which entry, and where the view leaf now is", async () => {
    await useCanopy.getState().navigateTo("l9", false);
    expect(useCanopy.getState().jobMessage).toEqual({
      kind: "ok",
      text: "Moved to l9, the label entry “keep” of a1, below a2: the LLM view ends with a2.",
    });
  });

  it("onto another entry: the line as before", async () => {
    await useCanopy.getState().navigateTo("a2", false);
    expect(useCanopy.getState().jobMessage?.text).toBe("Moved to a2.");
  });
});
