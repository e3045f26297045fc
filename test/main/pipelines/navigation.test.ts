// Tree navigation through the API (SPEC §2.7, §2.8, behaviours 49, 51–54, 56; D13, D14): where the
// view leaf goes, where a branch summary is attached, what the model is asked and what is stored.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { BranchSummaryEntry } from "../../../core/session/entries.ts";
import type { FakeServer } from "../../helpers/fake-openai-server.ts";
import {
  branchFraming,
  chatBody,
  chatRequests,
  closeServedHarness,
  conversationBlock,
  createHarness,
  type Harness,
  promptText,
  SessionFile,
  startServedHarness,
  systemPrompt,
  userPrompt,
} from "./harness.ts";
import { chainSession } from "./sessions.ts";

let server: FakeServer;
let h: Harness;

beforeEach(async () => {
  ({ server, h } = await startServedHarness({ model: true }));
});

afterEach(() => closeServedHarness({ server, h }));

const FILE_TAGS =
  "\n\n<read-files>\nsrc/read-me.ts\n</read-files>\n\n<modified-files>\nsrc/written.ts\n</modified-files>";
/** What the summarizer reads for the abandoned `u2 → a2` of the chain sessions. */
const U2_A2 = [
  "[User]: Second question: read and change files.",
  "[Assistant]: Second answer.",
  '[Assistant tool calls]: read(path="src/read-me.ts"); write(path="src/written.ts", content="x")',
].join("\n\n");

async function branchSummary(sessionId: string, id: string | null): Promise<BranchSummaryEntry> {
  const entry = (await h.call("session:get", { sessionId })).entries.find((e) => e.entry.id === id)?.entry;
  if (entry?.type !== "branch_summary") throw new Error(`no branch summary ${id}`);
  return entry as BranchSummaryEntry;
}

async function childrenOf(sessionId: string, parentId: string): Promise<string[]> {
  const detail = await h.call("session:get", { sessionId });
  return detail.entries.filter((e) => e.entry.parentId === parentId).map((e) => e.entry.id);
}

describe("navigation without a summary", () => {
  it("behaviour 51: to the current leaf → not cancelled, nothing appended, no model call", async () => {
    const sessionId = await h.importSession(chainSession(4));
    const before = await h.snapshot(sessionId);
    const result = await h.call("navigation:navigate", { sessionId, targetId: "a2", summarize: true });
    expect(result).toMatchObject({
      cancelled: false,
      summaryEntryId: null,
      newLeafId: "a2",
      editorText: null,
    });
    expect(await h.snapshot(sessionId)).toEqual(before);
    expect(server.requests).toHaveLength(0);
  });

  it("behaviour 52: to u1 → editor text is u1's, the view is empty, nothing appended", async () => {
    const sessionId = await h.importSession(chainSession(4));
    const before = await h.snapshot(sessionId);
    const result = await h.call("navigation:navigate", { sessionId, targetId: "u1" });
    expect(result).toMatchObject({
      cancelled: false,
      aborted: false,
      editorText: "First question about the build.",
      newLeafId: null,
      oldLeafId: "a2",
      summaryEntryId: null,
    });
    expect(await h.snapshot(sessionId)).toEqual({ ...before, viewLeafId: null });
    const view = await h.call("context:get", { sessionId });
    expect(view.leafId).toBeNull();
    expect(view.messages).toEqual([]);
  });

  it("behaviour 56: summarize false → no branch_summary entry, no model call", async () => {
    const sessionId = await h.importSession(chainSession(4));
    const before = await h.snapshot(sessionId);
    const result = await h.call("navigation:navigate", { sessionId, targetId: "a1", summarize: false });
    expect(result).toMatchObject({
      cancelled: false,
      newLeafId: "a1",
      editorText: null,
      summaryEntryId: null,
    });
    expect(await h.snapshot(sessionId)).toEqual({ ...before, viewLeafId: "a1" });
    expect(server.requests).toHaveLength(0);
  });

  it("D14: the view leaf is kept in the library across re-opening the database", async () => {
    const sessionId = await h.importSession(chainSession(6));
    await h.call("navigation:navigate", { sessionId, targetId: "a1" });
    const dir = h.dir;
    h.close();
    h = createHarness({ dir });
    expect((await h.snapshot(sessionId)).viewLeafId).toBe("a1");
    expect((await h.call("context:get", { sessionId })).messageEntryIds).toEqual(["u1", "a1"]);
  });

  it("instructions (or replacing the prompt) without asking for a summary are refused, nothing moved", async () => {
    const sessionId = await h.importSession(chainSession(4));
    const before = await h.snapshot(sessionId);
    const refusals = [
      { customInstructions: "focus on the build" },
      { summarize: false, customInstructions: "focus on the build" },
      { summarize: false, customInstructions: "x", replacePrompt: true },
      { replacePrompt: true },
      // Replacing the prompt with nothing: the CLI's rule too (--replace-prompt needs --instructions).
      { summarize: true, replacePrompt: true },
    ];
    for (const extra of refusals) {
      const error = await h.fail("navigation:navigate", { sessionId, targetId: "a1", ...extra });
      expect(error.code).toBe("invalid_input");
      expect(error.message).toMatch(/branch.summary/);
    }
    expect((await h.fail("navigation:navigate", { sessionId, targetId: "a1", customInstructions: "x" })).message).toBe(
      "Custom instructions are for the branch summary: ask for one (summarize: true) or leave them out; nothing moved",
    );
    expect(await h.snapshot(sessionId)).toEqual(before);
    // What the app sends: a plain move, and replacePrompt: false alone, still move.
    await h.call("navigation:navigate", { sessionId, targetId: "a1", summarize: false, replacePrompt: false });
    expect((await h.snapshot(sessionId)).viewLeafId).toBe("a1");
    expect(server.requests).toHaveLength(0);
  });
});

describe("navigation with a branch summary", () => {
  it("behaviour 52: to u1 → the summary is a root and the new view leaf; D13 stored text; max_tokens 2048", async () => {
    const sessionId = await h.importSession(chainSession(4));
    const before = await h.snapshot(sessionId);
    server.enqueue({ type: "reply", text: "## Goal\nAnswer two questions." });
    const result = await h.call("navigation:navigate", { sessionId, targetId: "u1", summarize: true });
    expect(result.cancelled).toBe(false);
    expect(result.editorText).toBe("First question about the build.");
    expect(result.fromExtension).toBe(false);
    const summaryId = result.summaryEntryId;
    expect(summaryId).not.toBeNull();
    expect(result.newLeafId).toBe(summaryId);

    const requests = chatRequests(server);
    expect(requests).toHaveLength(1);
    expect(systemPrompt(requests[0])).toBe(promptText("summarization-system"));
    expect(chatBody(requests[0]).max_tokens).toBe(2048);
    expect(userPrompt(requests[0])).toBe(
      conversationBlock(`[Assistant]: First answer.\n\n${U2_A2}`) + promptText("branch-summary"),
    );

    const entry = await branchSummary(sessionId, summaryId);
    const stored = `${promptText("branch-summary-preamble")}\n\n## Goal\nAnswer two questions.${FILE_TAGS}`;
    expect(entry).toMatchObject({
      type: "branch_summary",
      parentId: null,
      fromId: "root",
      summary: stored,
      details: { readFiles: ["src/read-me.ts"], modifiedFiles: ["src/written.ts"] },
    });
    expect(entry.fromExtension).toBeUndefined();
    expect(entry.fromHook).toBeUndefined();
    const after = await h.snapshot(sessionId);
    expect(after.entryCount).toBe(before.entryCount + 1);
    expect(after.viewLeafId).toBe(summaryId);
    const view = await h.call("context:get", { sessionId });
    expect(view.messageEntryIds).toEqual([summaryId]);
    expect(view.messages[0]).toMatchObject({
      role: "user",
      content: [{ type: "text", text: branchFraming(stored) }],
    });
  });

  it("behaviour 53: to u2 in u1→a1→u2→a2→u3→a3 → the summary hangs under a1, next to u2", async () => {
    const sessionId = await h.importSession(chainSession(6));
    server.enqueue({ type: "reply", text: "Third question answered." });
    const result = await h.call("navigation:navigate", { sessionId, targetId: "u2", summarize: true });
    expect(result.editorText).toBe("Second question: read and change files.");
    const entry = await branchSummary(sessionId, result.summaryEntryId);
    expect(entry.parentId).toBe("a1");
    expect(entry.fromId).toBe("a1");
    expect((await childrenOf(sessionId, "a1")).sort()).toEqual([result.summaryEntryId, "u2"].sort());
    expect(userPrompt(chatRequests(server)[0])).toBe(
      conversationBlock(
        `${U2_A2.replace("[User]: Second question: read and change files.\n\n", "")}\n\n[User]: Third question.\n\n[Assistant]: Third answer.`,
      ) + promptText("branch-summary"),
    );
    const view = await h.call("context:get", { sessionId });
    expect(view.messageEntryIds).toEqual(["u1", "a1", result.summaryEntryId]);
  });

  it("behaviour 54: to an assistant → no editor text, the summary's parent is it and it is the view leaf", async () => {
    const sessionId = await h.importSession(chainSession(4));
    server.enqueue({ type: "reply", text: "Explored reading and writing." });
    const result = await h.call("navigation:navigate", { sessionId, targetId: "a1", summarize: true });
    expect(result.editorText).toBeNull();
    const entry = await branchSummary(sessionId, result.summaryEntryId);
    expect(entry.parentId).toBe("a1");
    expect(entry.summary).toBe(
      `${promptText("branch-summary-preamble")}\n\nExplored reading and writing.${FILE_TAGS}`,
    );
    expect((await h.snapshot(sessionId)).viewLeafId).toBe(result.summaryEntryId);
    expect(userPrompt(chatRequests(server)[0])).toBe(conversationBlock(U2_A2) + promptText("branch-summary"));
  });

  it("D13: custom instructions are appended as Additional focus; replacePrompt replaces the prompt", async () => {
    const sessionId = await h.importSession(chainSession(6));
    await h.call("navigation:navigate", {
      sessionId,
      targetId: "a1",
      summarize: true,
      customInstructions: "Mention the files",
    });
    await h.call("navigation:navigate", { sessionId, targetId: "a3" });
    await h.call("navigation:navigate", {
      sessionId,
      targetId: "a1",
      summarize: true,
      customInstructions: "Only list the files.",
      replacePrompt: true,
    });
    const requests = chatRequests(server);
    expect(requests).toHaveLength(2);
    const conversation = conversationBlock(
      `${U2_A2}\n\n[User]: Third question.\n\n[Assistant]: Third answer.`,
    );
    expect(userPrompt(requests[0])).toBe(
      `${conversation}${promptText("branch-summary")}\n\nAdditional focus: Mention the files`,
    );
    expect(userPrompt(requests[1])).toBe(`${conversation}Only list the files.`);
  });

  it("the offline summarizer writes a branch summary with no HTTP", async () => {
    await h.call("settings:set", { key: "model", value: null });
    const sessionId = await h.importSession(chainSession(4));
    const result = await h.call("navigation:navigate", { sessionId, targetId: "a1", summarize: true });
    expect(server.requests).toHaveLength(0);
    const entry = await branchSummary(sessionId, result.summaryEntryId);
    expect(entry.summary.startsWith(`${promptText("branch-summary-preamble")}\n\n`)).toBe(true);
    expect(entry.summary.endsWith(FILE_TAGS)).toBe(true);
  });

  it("D14: a branch summary and its view leaf survive re-opening the database", async () => {
    const sessionId = await h.importSession(chainSession(4));
    const result = await h.call("navigation:navigate", { sessionId, targetId: "a1", summarize: true });
    const dir = h.dir;
    h.close();
    h = createHarness({ dir });
    const snapshot = await h.snapshot(sessionId);
    expect(snapshot.viewLeafId).toBe(result.summaryEntryId);
    expect(snapshot.ids).toContain(result.summaryEntryId);
  });
});

describe("behaviour 49: which entries a branch summary covers (navigation:preview)", () => {
  // A─B─C─D and A─E─F, plus a second root R1─R2.
  function forest() {
    return new SessionFile()
      .user("A", "A")
      .assistant("B", "B")
      .user("C", "C")
      .assistant("D", "D")
      .assistant("E", "E", { parentId: "A" })
      .user("F", "F")
      .user("R1", "R1", null)
      .assistant("R2", "R2");
  }

  const table: [string | null, string, string | null, string[]][] = [
    ["D", "F", "A", ["B", "C", "D"]],
    ["D", "B", "B", ["C", "D"]],
    ["B", "D", "B", []],
    [null, "D", null, []],
    ["R2", "D", null, ["R1", "R2"]],
  ];
  for (const [oldLeaf, target, ancestor, entries] of table) {
    it(`${oldLeaf ?? "null"} → ${target}: common ancestor ${ancestor ?? "null"}, entries [${entries.join(", ")}]`, async () => {
      const sessionId = await h.importSession(forest());
      await h.call("session:set-view-leaf", { sessionId, leafId: oldLeaf });
      const preview = await h.call("navigation:preview", { sessionId, targetId: target });
      expect(preview).toMatchObject({
        oldLeafId: oldLeaf,
        commonAncestorId: ancestor,
        entriesToSummarize: entries,
      });
    });
  }
});

describe("D3: navigating in a damaged tree uses the repaired parents", () => {
  function damaged() {
    return new SessionFile()
      .user("u1", "First question about the build.")
      .assistant("a1", "First answer.")
      .user("o1", "An orphan question.", "missing1")
      .assistant("o2", "An orphan answer.")
      .user("s1", "A message that names itself as parent.", "s1");
  }

  it("to an orphan user message: the view becomes empty and its text goes back to the editor", async () => {
    const sessionId = await h.importSession(damaged());
    await h.call("session:set-view-leaf", { sessionId, leafId: "a1" });
    const result = await h.call("navigation:navigate", { sessionId, targetId: "o1" });
    expect(result).toMatchObject({ cancelled: false, newLeafId: null, editorText: "An orphan question." });
    expect((await h.snapshot(sessionId)).viewLeafId).toBeNull();
  });

  it("to a self-parented user message: the view becomes empty, not the message itself", async () => {
    const sessionId = await h.importSession(damaged());
    await h.call("session:set-view-leaf", { sessionId, leafId: "a1" });
    const preview = await h.call("navigation:preview", { sessionId, targetId: "s1" });
    expect(preview).toMatchObject({ newLeafId: null, editorText: "A message that names itself as parent." });
    const result = await h.call("navigation:navigate", { sessionId, targetId: "s1" });
    expect(result.newLeafId).toBeNull();
  });

  it("to an orphan user message with a summary: the summary is a new root", async () => {
    const sessionId = await h.importSession(damaged());
    await h.call("session:set-view-leaf", { sessionId, leafId: "a1" });
    server.enqueue({ type: "reply", text: "Asked about the build." });
    const result = await h.call("navigation:navigate", { sessionId, targetId: "o1", summarize: true });
    expect(result.cancelled).toBe(false);
    const entry = await branchSummary(sessionId, result.summaryEntryId);
    expect(entry).toMatchObject({ parentId: null, fromId: "root" });
    expect((await h.call("context:get", { sessionId })).messageEntryIds).toEqual([result.summaryEntryId]);
  });
});
