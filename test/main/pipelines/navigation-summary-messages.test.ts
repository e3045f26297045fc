// navigation:preview's summaryHasMessages (SPEC §8.2): whether the branch left gives a branch summary
// any message, as core reads the stored entries — messages but tool results, custom messages, branch
// summaries and compactions — so the move dialog need not restate the rule. Each session here is
// u1 → a1 (the target) and, below a1, the branch the move leaves (the view leaf is the last line).
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { prepareBranchEntries } from "../../../core/compaction/branch.ts";
import type { SessionEntry } from "../../../core/session/entries.ts";
import { closeHarness, createHarness, type Harness, parsesDuring, SessionFile } from "./harness.ts";

let h: Harness;
beforeEach(() => {
  h = createHarness();
});
afterEach(() => closeHarness(h));

type Left = (file: SessionFile) => void;

const toolResults: Left = (file) => {
  file.toolResult("t1", "file contents", "read", "a1_call0").toolResult("t2", "ok", "edit", "a1_call1");
};
const bookkeeping: Left = (file) => {
  file
    .add("m1", "model_change", { provider: "openai", modelId: "gpt-other" })
    .add("k1", "thinking_level_change", { thinkingLevel: "high" })
    .add("l1", "label", { targetId: "a1", label: "here" })
    .add("x1", "custom", { customType: "note", data: { n: 1 } });
};
const customMessage: Left = (file) => {
  file.add("c1", "custom_message", { customType: "reminder", content: "remember this", display: true });
};
const branchSummary: Left = (file) => {
  file.add("s1", "branch_summary", { fromId: "a1", summary: "An earlier branch." });
};
const compaction: Left = (file) => {
  file.compaction("z1", { summary: "Earlier work.", firstKeptEntryId: "a1" });
};
const reply: Left = (file) => {
  file.assistant("a2", "another answer");
};

async function previewOf(...left: Left[]) {
  const file = new SessionFile().user("u1", "question").assistant("a1", "answer", {
    calls: [
      { name: "read", args: { path: "a.ts" } },
      { name: "edit", args: { path: "a.ts", oldText: "x", newText: "y" } },
    ],
  });
  for (const add of left) add(file);
  const sessionId = await h.importSession(file);
  const preview = await h.call("navigation:preview", { sessionId, targetId: "a1" });
  // The same answer as the summary's own walk over the real entries (no budget: all of them).
  const byId = new Map((await h.call("session:get", { sessionId })).entries.map((e) => [e.entry.id, e.entry]));
  const entries = preview.entriesToSummarize.map((id) => byId.get(id) as SessionEntry);
  expect(preview.summaryHasMessages).toBe(prepareBranchEntries(entries).messages.length > 0);
  return preview;
}

describe("navigation:preview says whether the branch left gives a summary any message", () => {
  it("only tool results: no message (a summary would say 'No content to summarize')", async () => {
    const preview = await previewOf(toolResults);
    expect(preview.entriesToSummarize).toEqual(["t1", "t2"]);
    expect(preview.summaryHasMessages).toBe(false);
  });

  it("only bookkeeping (model and thinking changes, a label, a custom entry) and tool results: no message", async () => {
    const preview = await previewOf(toolResults, bookkeeping);
    expect(preview.entriesToSummarize).toEqual(["t1", "t2", "m1", "k1", "l1", "x1"]);
    expect(preview.summaryHasMessages).toBe(false);
  });

  it("a custom message, a branch summary or a compaction alone each give one", async () => {
    for (const left of [customMessage, branchSummary, compaction]) {
      const preview = await previewOf(left);
      expect(preview.entriesToSummarize).toHaveLength(1);
      expect(preview.summaryHasMessages).toBe(true);
    }
  });

  it("a reply gives one, also far behind newer tool results and bookkeeping", async () => {
    expect((await previewOf(reply)).summaryHasMessages).toBe(true);
    const many: Left = (file) => {
      for (let i = 0; i < 40; i++) file.toolResult(`r${i}`, `result ${i}`, "read", "a2_call0");
    };
    const preview = await previewOf(reply, many, bookkeeping);
    expect(preview.entriesToSummarize).toHaveLength(45);
    expect(preview.summaryHasMessages).toBe(true);
  });

  it("nothing left (the target is on the view leaf's own path): no message", async () => {
    const sessionId = await h.importSession(new SessionFile().user("u1", "question").assistant("a1", "answer"));
    const preview = await h.call("navigation:preview", { sessionId, targetId: "a1" });
    expect(preview).toMatchObject({ entriesToSummarize: [], summaryHasMessages: false });
  });

  it("reads the branch newest first and stops at the first message", async () => {
    const file = new SessionFile().user("u1", "question").assistant("a1", "answer");
    for (let i = 2; i < 300; i++) file.user(`u${i}`, `question ${i}`).assistant(`a${i}`, `answer ${i}`);
    const sessionId = await h.importSession(file);
    const parsed = await parsesDuring(() => h.call("navigation:preview", { sessionId, targetId: "a1" }));
    expect(parsed).toBeLessThan(10);
  });
});
