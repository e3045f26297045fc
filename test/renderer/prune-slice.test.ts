// The prune slice (renderer/src/store/prune-slice.ts) against a scripted contract: Prune… asks
// for the plan at the selected entry (the view leaf when none) and closes the compaction plan;
// applying sends the plan's own leaf, says what it did, reloads the tree and LLM view and asks
// for the plan again; a job running on the session refuses it with the reason, nothing sent; a
// failure is one line; Compact… closes the pruning plan; the desktop menu's command opens it.
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { PrunePlanDto } from "../../core/api/dto.ts";

const calls: { channel: string; input: unknown }[] = [];
let applyAnswer: () => Promise<unknown> = async () => {
  throw new Error("not scripted");
};
const plan = (leafId: string | null, willPrune: boolean): PrunePlanDto => ({
  sessionId: "s1",
  leafId,
  candidateCount: 1,
  tools: [{ toolName: "bash", count: 1 }],
  tokensSaved: 29991,
  willPrune,
  alreadyPruned: 0,
  reason: null,
});

vi.mock("../../renderer/src/api.ts", async () => {
  const { reloadScript, scriptedApi } = await import("../helpers/scripted-api.ts");
  return scriptedApi(
    {
      "pruning:preview": (input: { leafId?: string }) =>
        plan(input.leafId ?? "v1", calls.filter((c) => c.channel === "pruning:apply").length === 0),
      "pruning:apply": () => applyAnswer(),
      "compaction:preview": () => ({ sessionId: "s1" }),
      ...reloadScript("s1", "v1"),
    },
    { record: (channel, input) => calls.push({ channel, input }) },
  );
});

interface PruneState {
  selectedSessionId: string | null;
  selectedEntryId: string | null;
  runningJobs: Record<string, unknown>;
  jobMessage: { kind: "ok" | "error"; text: string } | null;
  plan: unknown;
  prunePlan: PrunePlanDto | null;
  pruneBusy: string | null;
  previewPrune(): Promise<void>;
  applyPrune(): Promise<void>;
  previewCompaction(): Promise<void>;
}
// Imported through a variable so the node type-check (no DOM lib) does not follow the store.
const storeModule = "../../renderer/src/store/index.ts";
const { useCanopy } = (await import(storeModule)) as {
  useCanopy: { getState(): PruneState; setState(partial: Record<string, unknown>): void };
};
const appCommandsModule = "../../renderer/src/features/chat/use-app-commands.ts";
const { runAppCommand } = (await import(appCommandsModule)) as {
  runAppCommand(command: { command: string }): Promise<void>;
};
const state = () => useCanopy.getState();
const channels = () => calls.map((call) => call.channel);

beforeEach(() => {
  calls.length = 0;
  applyAnswer = async () => ({ sessionId: "s1", prunedCount: 1, tokensSaved: 29991 });
  useCanopy.setState({
    selectedSessionId: "s1",
    selectedEntryId: null,
    runningJobs: {},
    jobMessage: null,
    plan: { sessionId: "s1" },
    prunePlan: null,
    pruneError: null,
    pruneBusy: null,
  });
});

describe("pruning from the store", () => {
  it("plans at the selected entry, closing the compaction plan; applies at the plan's leaf and reloads", async () => {
    useCanopy.setState({ selectedEntryId: "e3" });
    await state().previewPrune();
    expect(calls[0]).toEqual({ channel: "pruning:preview", input: { sessionId: "s1", leafId: "e3" } });
    expect(state().plan).toBeNull();
    expect(state().prunePlan?.leafId).toBe("e3");
    // The selection moves on meanwhile: the plan shown is the one applied.
    useCanopy.setState({ selectedEntryId: "e5" });
    calls.length = 0;
    await state().applyPrune();
    expect(calls[0]).toEqual({ channel: "pruning:apply", input: { sessionId: "s1", leafId: "e3" } });
    expect(channels()).toEqual(expect.arrayContaining(["session:tree", "context:get", "pruning:preview"]));
    expect(state().jobMessage).toEqual({
      kind: "ok",
      text: "Pruned 1 tool output, ~29,991 tokens saved; the LLM view shows their notices.",
    });
    expect(state().prunePlan?.willPrune).toBe(false);
    expect(state().pruneBusy).toBeNull();
  });

  it("plans at the view leaf when nothing is selected", async () => {
    await state().previewPrune();
    expect(calls[0]).toEqual({ channel: "pruning:preview", input: { sessionId: "s1" } });
  });

  it("refuses while a job runs on the session, with the reason, and sends nothing", async () => {
    await state().previewPrune();
    calls.length = 0;
    useCanopy.setState({ runningJobs: { s1: { kind: "compaction", sessionId: "s1" } } });
    await state().applyPrune();
    expect(calls).toEqual([]);
    expect(state().jobMessage).toEqual({
      kind: "error",
      text: "A compaction is running on this session; wait for it or cancel it first (Escape).",
    });
  });

  it("says a failure in one line", async () => {
    await state().previewPrune();
    applyAnswer = async () => {
      throw new Error("database is locked");
    };
    await state().applyPrune();
    expect(state().jobMessage).toEqual({ kind: "error", text: "Pruning failed: database is locked" });
    expect(state().pruneBusy).toBeNull();
  });

  it("makes way for the compaction plan", async () => {
    await state().previewPrune();
    expect(state().prunePlan).not.toBeNull();
    await state().previewCompaction();
    expect(state().prunePlan).toBeNull();
  });

  it("is what the desktop menu's Prune Old Tool Output… (Ctrl/Cmd+Shift+P) opens", async () => {
    await runAppCommand({ command: "prune" });
    expect(calls[0]).toEqual({ channel: "pruning:preview", input: { sessionId: "s1" } });
    expect(state().prunePlan?.leafId).toBe("v1");
  });
});
