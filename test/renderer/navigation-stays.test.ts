// Moving the view leaf onto the user message just below it (jobs slice navigateTo, against a
// scripted contract): the leaf resumes at the message's parent, where it already is (SPEC §2.8),
// so the outcome line says it stays there rather than "Moved to" the entry it was on.
import { beforeEach, describe, expect, it, vi } from "vitest";

vi.mock("../../renderer/src/api.ts", async () => {
  const { reloadScript, scriptedApi } = await import("../helpers/scripted-api.ts");
  return scriptedApi({
    "navigation:navigate": () => ({
      cancelled: false,
      aborted: false,
      newLeafId: "a1",
      oldLeafId: "a1",
      editorText: "Second question",
      summaryEntryId: null,
      fromExtension: false,
    }),
    ...reloadScript("s1", "a1"),
  });
});

interface NavigationState {
  composerText: string;
  jobMessage: { kind: "ok" | "error"; text: string } | null;
  navigateTo(targetId: string, summarize: boolean): Promise<unknown>;
}
// Imported through a variable so the node type-check (no DOM lib) does not follow the store.
const storeModule = "../../renderer/src/store/index.ts";
const { useCanopy } = (await import(storeModule)) as {
  useCanopy: { getState(): NavigationState; setState(partial: Record<string, unknown>): void };
};

beforeEach(() => {
  useCanopy.setState({ selectedSessionId: "s1", selectedEntryId: "u2", runningJobs: {}, jobMessage: null, composerText: "" });
});

describe("moving onto the user message just below the view leaf", () => {
  it("says the view leaf stays where it is, and that the message's text is in the composer", async () => {
    await useCanopy.getState().navigateTo("u2", false);
    expect(useCanopy.getState().composerText).toBe("Second question");
    expect(useCanopy.getState().jobMessage?.text).toBe(
      "The view leaf stays at a1 (u2 is the message just below it). The message's text is in the composer.",
    );
  });
});
