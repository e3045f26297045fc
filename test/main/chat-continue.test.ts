// "Continue from here" (chat:continue, issue 6 item 1) against a real OpenAI-compatible server on
// 127.0.0.1: after a user message is edited as a new branch, the model's reply to it is appended
// below it — no second user message — streamed, abortable, with the automatic check afterwards.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { EventName, Events } from "../../core/api/contract.ts";
import type { MessageEntry, SessionEntry } from "../../core/session/entries.ts";
import { loadSessionEntries } from "../../main/library/load.ts";
import { AUTO_CONTINUE_PROMPT } from "../../main/pipelines/auto-compaction.ts";
import { CHAT_CANCELLED, NOT_A_USER_LEAF } from "../../main/pipelines/chat-turn.ts";
import {
  type FakeServer,
  type RequestMatcher,
  startFakeOpenAiServer,
} from "../helpers/fake-openai-server.ts";
import { cliRecorder } from "../helpers/cli.ts";
import { createHarness, type Harness, removeDir, SessionFile, sized, until } from "./pipelines/harness.ts";

const isChat: RequestMatcher = (body) => !("max_tokens" in body);
const EDITED = "Please use a streaming parser instead.";

let h: Harness;
let fake: FakeServer;
let events: { name: EventName; payload: unknown }[];

beforeEach(async () => {
  h = createHarness();
  fake = await startFakeOpenAiServer({ defaultText: "## Goal\nSummary." });
  await h.configureFakeModel(fake, { stream: true });
  await h.call("settings:set", { key: "compaction.keepRecentTokens", value: 4000 });
  await h.call("settings:set", { key: "retry.baseDelayMs", value: 1 });
  events = [];
  h.api.ctx.events.subscribe((name, payload) => events.push({ name, payload }));
});
afterEach(async () => {
  h.close();
  await fake.close();
  removeDir(h.dir);
});

const chatRequests = () =>
  fake.requests.filter((r) => r.path === "/v1/chat/completions" && isChat(r.body as Record<string, unknown>));
const messagesOf = (index: number) =>
  (chatRequests()[index]?.body as { messages?: { role: string; content: unknown }[] } | undefined)
    ?.messages ?? [];
const entries = (sessionId: string): SessionEntry[] => loadSessionEntries(h.api.ctx.db, sessionId);
const byId = (sessionId: string, id: string) => entries(sessionId).find((e) => e.id === id) as MessageEntry;
const payloads = <E extends EventName>(name: E) =>
  events.filter((e) => e.name === name).map((e) => e.payload as Events[E]);

/** u1 → a1 → u2 → a2: the user message u2 is what gets edited. */
async function conversation(tokens = 20): Promise<string> {
  const file = new SessionFile({ id: "continue-1" })
    .user("u1", sized("Fix the parser.", tokens))
    .assistant("a1", sized("Which file?", tokens), { usage: { input: 500, output: 20 } })
    .user("u2", "It is src/parse.ts")
    .assistant("a2", "Done.", { usage: { input: 600, output: 5 } });
  return h.importSession(file);
}

describe("chat:continue", () => {
  it("after an edit as a new branch, appends only the model's reply to the edited message", async () => {
    const sessionId = await conversation();
    const edit = await h.call("edits:edit-message", { sessionId, entryId: "u2", text: EDITED });
    const editedId = edit.entryId as string;
    expect(edit.viewLeafId).toBe(editedId);
    const before = entries(sessionId);
    fake.enqueue({
      type: "reply",
      chunks: ["Stream", "ing it ", "is."],
      usage: { prompt_tokens: 80, completion_tokens: 4 },
      match: isChat,
    });

    const result = await h.call("chat:continue", { sessionId });

    expect(result).toMatchObject({ userEntryId: editedId, stopReason: "stop", cancelled: false });
    expect(result.appendedEntryIds).toEqual([result.assistantEntryId]);
    // Paced: the first chunk at once, the whole reply at the end (the middle one if it came late).
    expect([
      ["Stream", "Streaming it is."],
      ["Stream", "Streaming it ", "Streaming it is."],
    ]).toContainEqual(payloads("chat:progressed").map((p) => p.text));
    const after = entries(sessionId);
    expect(after).toHaveLength(before.length + 1);
    expect(after.slice(0, before.length)).toEqual(before);
    const reply = byId(sessionId, result.assistantEntryId);
    expect(reply.parentId).toBe(editedId);
    expect(reply.message).toMatchObject({
      role: "assistant",
      content: [{ type: "text", text: "Streaming it is." }],
      model: "fake-model",
    });
    // The request is the LLM view at the edited message: it ends there, once, and u2/a2 are not in it.
    const sent = messagesOf(0);
    expect(sent.at(-1)).toEqual({ role: "user", content: EDITED });
    expect(sent.filter((m) => m.role === "user" && m.content === EDITED)).toHaveLength(1);
    expect(sent.some((m) => m.content === "It is src/parse.ts" || m.content === "Done.")).toBe(false);
    expect(sent).toHaveLength(3);
    const view = await h.call("context:get", { sessionId });
    expect(view.leafId).toBe(result.assistantEntryId);
    expect(view.messages.at(-1)).toMatchObject({ role: "assistant" });
    // The original branch is intact.
    expect(byId(sessionId, "u2").parentId).toBe("a1");
    expect(byId(sessionId, "a2").parentId).toBe("u2");
  });

  it("refuses when the view leaf is not a user message, without calling the model", async () => {
    const sessionId = await conversation();
    const error = await h.fail("chat:continue", { sessionId });
    expect(error.code).toBe("invalid_input");
    expect(error.message).toBe(`The view leaf a2 ${NOT_A_USER_LEAF}`);
    await h.call("session:set-view-leaf", { sessionId, leafId: null });
    expect((await h.fail("chat:continue", { sessionId })).message).toContain("(none)");
    expect(chatRequests()).toHaveLength(0);
    expect(entries(sessionId).map((e) => e.id)).toEqual(["u1", "a1", "u2", "a2"]);
  });

  it("is cancelled by chat:abort with nothing appended, and refuses a second turn meanwhile", async () => {
    const sessionId = await conversation();
    await h.call("session:set-view-leaf", { sessionId, leafId: "u2" });
    fake.enqueue({ type: "reply", chunks: ["Partial", " never"], chunkDelayMs: 10_000, match: isChat });
    const running = h.api.call("chat:continue", { sessionId });
    await until(() => payloads("chat:progressed").length > 0, 5000, "the first chunk");
    expect((await h.fail("chat:continue", { sessionId })).code).toBe("conflict");
    expect((await h.fail("chat:send", { sessionId, text: "x" })).code).toBe("conflict");
    expect(await h.call("chat:abort", { sessionId })).toEqual({ aborted: true });
    expect(await running).toEqual({ ok: false, error: { code: "cancelled", message: CHAT_CANCELLED } });
    expect(entries(sessionId).map((e) => e.id)).toEqual(["u1", "a1", "u2", "a2"]);
    expect((await h.call("context:get", { sessionId })).leafId).toBe("u2");
  });

  it("runs the automatic check after the reply: threshold compaction and one auto-continue", async () => {
    const sessionId = await conversation(3000);
    const edit = await h.call("edits:edit-message", { sessionId, entryId: "u2", text: EDITED });
    fake.enqueue(
      {
        type: "reply",
        text: "Big reply.",
        usage: { prompt_tokens: 190_000, completion_tokens: 100 },
        match: isChat,
      },
      {
        type: "reply",
        text: "All done.",
        usage: { prompt_tokens: 5000, completion_tokens: 5 },
        match: isChat,
      },
    );
    const result = await h.call("chat:continue", { sessionId });
    expect(result.autoCompaction).toMatchObject({ reason: "threshold", aborted: false });
    const [reply, compaction, prompt, second] = result.appendedEntryIds;
    expect(result.appendedEntryIds).toHaveLength(4);
    expect(byId(sessionId, reply as string).parentId).toBe(edit.entryId);
    expect(compaction).toBe(result.autoCompaction?.entryId);
    expect(byId(sessionId, prompt as string).message).toMatchObject({
      role: "user",
      content: [{ type: "text", text: AUTO_CONTINUE_PROMPT }],
      synthetic: true,
    });
    expect(result).toMatchObject({ userEntryId: edit.entryId, assistantEntryId: second });
    expect(chatRequests()).toHaveLength(2);
  });
});

describe("undo after continuing an edited message", () => {
  const archivedIds = async (sessionId: string) =>
    (await h.call("session:tree", { sessionId })).nodes.filter((n) => n.archived).map((n) => n.id);

  it("hides the edited branch with its reply (archived, nothing removed); redo shows it again", async () => {
    const sessionId = await conversation();
    const edit = await h.call("edits:edit-message", { sessionId, entryId: "u2", text: EDITED });
    const copy = edit.entryId as string;
    const turn = await h.call("chat:continue", { sessionId });
    const reply = turn.assistantEntryId as string;
    const stored = entries(sessionId);
    expect(edit.history.undo).toBe("edit-message");

    const undone = await h.call("edits:undo", { sessionId });
    expect(undone).toMatchObject({ operation: "edit-message", viewLeafId: "a2", history: { redo: "edit-message" } });
    expect(undone.note).toContain(`entry ${reply} (a reply or summary)`);
    expect(undone.note).toContain("archived instead");
    // Nothing is lost: the copy and its reply are stored, hidden as an archived branch.
    expect(entries(sessionId)).toEqual(stored);
    expect(await archivedIds(sessionId)).toEqual(expect.arrayContaining([copy, reply]));
    expect(await archivedIds(sessionId)).toHaveLength(2);

    const redone = await h.call("edits:redo", { sessionId });
    expect(redone).toMatchObject({ operation: "edit-message", viewLeafId: reply, history: { undo: "edit-message" } });
    expect(redone.note).toContain("shown again");
    expect(await archivedIds(sessionId)).toEqual([]);
    expect(entries(sessionId)).toEqual(stored);

    // Again, then past it: the undo stack goes on below the edit.
    await h.call("edits:label", { sessionId, targetId: "u1", label: "start" });
    expect((await h.call("edits:undo", { sessionId })).operation).toBe("label");
    expect((await h.call("edits:undo", { sessionId })).operation).toBe("edit-message");
    expect(await archivedIds(sessionId)).toHaveLength(2);
    expect((await h.call("edits:redo", { sessionId })).viewLeafId).toBe(reply);
    expect(entries(sessionId)).toEqual(stored);
  });

  it("moves the view leaf back from deep below the edit, and leaves one the user moved elsewhere", async () => {
    const sessionId = await conversation();
    await h.call("edits:edit-message", { sessionId, entryId: "u2", text: EDITED });
    await h.call("chat:continue", { sessionId });
    fake.enqueue({ type: "reply", text: "Second answer.", match: isChat });
    const deeper = await h.call("chat:send", { sessionId, text: "And then?" });
    expect((await h.call("edits:undo", { sessionId })).viewLeafId).toBe("a2");
    const redone = await h.call("edits:redo", { sessionId });
    expect(redone.viewLeafId).toBe(deeper.assistantEntryId);

    await h.call("navigation:navigate", { sessionId, targetId: "a1", summarize: false });
    const undone = await h.call("edits:undo", { sessionId });
    expect(undone).toMatchObject({ operation: "edit-message", viewLeafId: "a1" });
    expect(undone.note).toContain("archived instead");
  });

  it("the CLI prints what undo and redo did on the one line", async () => {
    const sessionId = await conversation();
    await h.call("edits:edit-message", { sessionId, entryId: "u2", text: EDITED });
    const reply = (await h.call("chat:continue", { sessionId })).assistantEntryId as string;
    h.close();
    const { out, run } = cliRecorder(h.dbPath);
    expect(await run("undo", sessionId)).toBe(0);
    expect(out.pop()).toMatch(
      new RegExp(`^undid edit-message: The edited message has entry ${reply} \\(a reply or summary\\) below it, which undo never removes: its branch is archived instead`),
    );
    expect(await run("redo", sessionId)).toBe(0);
    expect(out.pop()).toBe("redid edit-message: The edited message's branch is shown again, with what was added below it");
  });
});
