// Enter or a double-click on an entry (tree slice moveViewLeaf, against a scripted contract):
// with "Ask to summarize when navigating" (branchSummary.enabled) the branch dialog asks first
// and nothing moves yet; with it off (the default) the view leaf moves at once, without a summary.
// A move that does nothing (onto the view leaf, or while a job runs) says why on the canvas.
import { beforeEach, describe, expect, it, vi } from "vitest";

const calls: { channel: string; input: unknown }[] = [];
let askToSummarize = false;
/** What navigation:preview fails with (null: it answers). */
let previewFailure: string | null = null;

vi.mock("../../renderer/src/api.ts", async () => {
  const { reloadScript, noModelSettings, scriptedApi } = await import("../helpers/scripted-api.ts");
  return scriptedApi(
    {
      ...reloadScript("s1", "b3"),
      "settings:get": () => ({
        ...noModelSettings(),
        branchSummary: { enabled: askToSummarize, reserveTokens: 16384 },
      }),
      "navigation:preview": () => {
        if (previewFailure !== null) throw new Error(previewFailure);
        return { targetId: "b3", entriesToSummarize: ["x1", "x2"], editorText: null };
      },
      "navigation:navigate": () => ({
        cancelled: false,
        aborted: false,
        newLeafId: "b3",
        oldLeafId: "a1",
        editorText: null,
        summaryEntryId: null,
        fromExtension: false,
      }),
    },
    { record: (channel, input) => calls.push({ channel, input }) },
  );
});

interface TreeState {
  branchDialog: { targetId: string; preview: unknown; error?: string } | null;
  drag: unknown;
  treeHint: { text: string } | null;
  moveViewLeaf(targetId: string): Promise<void>;
  beginBranchDrag(sourceId: string): boolean;
}
// Imported through a variable so the node type-check (no DOM lib) does not follow the store.
const storeModule = "../../renderer/src/store/index.ts";
const { useCanopy } = (await import(storeModule)) as {
  useCanopy: { getState(): TreeState; setState(partial: Record<string, unknown>): void };
};

beforeEach(() => {
  calls.length = 0;
  previewFailure = null;
  useCanopy.setState({
    selectedSessionId: "s1",
    tree: { sessionId: "s1", viewLeafId: "a1", nodes: [], problems: [] },
    runningJobs: {},
    branchDialog: null,
    drag: null,
    treeHint: null,
  });
});

describe("moving the view leaf with Enter or a double-click", () => {
  it("asks first (the branch dialog) when 'Ask to summarize when navigating' is on", async () => {
    askToSummarize = true;
    await useCanopy.getState().moveViewLeaf("b3");
    expect(useCanopy.getState().branchDialog?.targetId).toBe("b3");
    expect(calls.map((c) => c.channel)).not.toContain("navigation:navigate");
  });

  it("says why when what the move would summarize cannot be worked out (not 'Working out…' for ever)", async () => {
    askToSummarize = true;
    previewFailure = "unknown entry: c9";
    await useCanopy.getState().moveViewLeaf("c9");
    await vi.waitFor(() => expect(useCanopy.getState().branchDialog?.error).toBe("unknown entry: c9"));
    expect(useCanopy.getState().branchDialog).toMatchObject({ targetId: "c9", preview: null });
  });

  it("moves at once, without a summary, when the setting is off", async () => {
    askToSummarize = false;
    await useCanopy.getState().moveViewLeaf("b3");
    expect(useCanopy.getState().branchDialog).toBeNull();
    expect(calls.find((c) => c.channel === "navigation:navigate")?.input).toEqual({
      sessionId: "s1",
      targetId: "b3",
      summarize: false,
    });
  });
});

describe("a move of the view leaf that does nothing says why", () => {
  it("onto the view leaf itself: “Already at this point”", async () => {
    await useCanopy.getState().moveViewLeaf("a1");
    expect(useCanopy.getState().treeHint?.text).toMatch(/^Already at this point/);
    expect(calls.map((c) => c.channel)).not.toContain("navigation:navigate");
  });

  it("while a compaction runs: Enter, a double-click and a drag of the leaf are refused with a line", async () => {
    useCanopy.setState({ runningJobs: { s1: { kind: "compaction", sessionId: "s1", text: "" } } });
    await useCanopy.getState().moveViewLeaf("b3");
    expect(useCanopy.getState().treeHint?.text).toBe(
      "A compaction is running: the view leaf stays until it ends (Escape cancels it).",
    );
    expect(calls.map((c) => c.channel)).not.toContain("navigation:navigate");

    useCanopy.setState({ treeHint: null });
    expect(useCanopy.getState().beginBranchDrag("a1")).toBe(false);
    expect(useCanopy.getState().drag).toBeNull();
    expect(useCanopy.getState().treeHint?.text).toMatch(/^A compaction is running/);
  });
});
