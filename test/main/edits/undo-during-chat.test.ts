// Undo while a chat reply is being written for the session: undoing an edited message (or a
// label) removes entries, among them the one the reply is to hang below; the reply (and the
// user's message sent with it) would then be refused at the end ("no longer exists; nothing was
// saved") and lost. Such an undo is refused while a job runs on the session; other undos run.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type FakeServer, startFakeOpenAiServer } from "../../helpers/fake-openai-server.ts";
import { createHarness, type Harness, removeDir, SessionFile, until } from "../pipelines/harness.ts";

let h: Harness;
let fake: FakeServer;

beforeEach(async () => {
  h = createHarness();
  fake = await startFakeOpenAiServer();
  await h.configureFakeModel(fake, { stream: true });
});
afterEach(async () => {
  h.close();
  await fake.close();
  removeDir(h.dir);
});

describe("undo while a chat turn runs", () => {
  it("refuses to remove the edited message a reply is being written below; the turn is saved", async () => {
    const sessionId = await h.importSession(
      new SessionFile({ id: "undo-chat-1" }).user("u1", "Fix the parser.").assistant("a1", "Which file?"),
    );
    const edit = await h.call("edits:edit-message", { sessionId, entryId: "u1", text: "Fix the lexer." });
    await h.call("edits:rename", { sessionId, title: "Lexer" });
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    fake.enqueue({ type: "reply", chunks: ["The lexer ", "is fixed."], holdRest: held });
    const turn = h.call("chat:send", { sessionId, text: "Which tokens changed?" });
    await until(() => fake.requests.length === 1, 5000, "the chat request");
    // An undo that removes nothing (the rename) runs; the next one would remove the edited copy.
    expect((await h.call("edits:undo", { sessionId })).operation).toBe("rename");
    const refused = await h.fail("edits:undo", { sessionId });
    expect(refused.code).toBe("conflict");
    expect(refused.message).toMatch(/chat turn is running for this session/);
    release();
    const result = await turn;
    expect(result.userEntryId).toBeDefined();
    const { entries } = await h.call("session:get", { sessionId });
    const ids = entries.map((stored) => stored.entry.id);
    expect(ids).toContain(edit.entryId);
    expect(ids).toContain(result.userEntryId);
    // Once the turn is in, the undo runs (it hides the answered edit, removing nothing).
    expect((await h.call("edits:undo", { sessionId })).operation).toBe("edit-message");
  });
});
