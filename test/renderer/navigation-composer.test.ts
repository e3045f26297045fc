// Moving the view leaf onto a user message (jobs slice navigateTo, against a scripted contract):
// the message's text goes to the composer only when the composer is empty (SPEC §10.4); a
// draft the user typed is kept, and the notice says which of the two happened.
import { beforeEach, describe, expect, it, vi } from "vitest";

const calls: { channel: string; input: unknown }[] = [];

vi.mock("../../renderer/src/api.ts", async () => {
  const { reloadScript, scriptedApi } = await import("../helpers/scripted-api.ts");
  return scriptedApi(
    {
      "navigation:navigate": () => ({
        cancelled: false,
        aborted: false,
        newLeafId: "a1",
        oldLeafId: "t9",
        editorText: "Original question",
        summaryEntryId: null,
        fromExtension: false,
      }),
      ...reloadScript("s1", "a1"),
    },
    { record: (channel, input) => calls.push({ channel, input }) },
  );
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
  calls.length = 0;
  useCanopy.setState({ selectedSessionId: "s1", selectedEntryId: "u2", runningJobs: {}, jobMessage: null });
});

describe("moving the view leaf onto a user message", () => {
  it("puts the message's text in an empty composer", async () => {
    useCanopy.setState({ composerText: "  " });
    await useCanopy.getState().navigateTo("u2", false);
    expect(useCanopy.getState().composerText).toBe("Original question");
    expect(useCanopy.getState().jobMessage?.text).toBe("Moved to a1. The message's text is in the composer.");
  });

  it("keeps a draft the user typed instead of replacing it, and says so", async () => {
    useCanopy.setState({ composerText: "My unsent draft" });
    await useCanopy.getState().navigateTo("u2", false);
    expect(calls.map((c) => c.channel)).toContain("navigation:navigate");
    expect(useCanopy.getState().composerText).toBe("My unsent draft");
    expect(useCanopy.getState().jobMessage?.text).toContain("Your draft stays in the composer");
  });
});
