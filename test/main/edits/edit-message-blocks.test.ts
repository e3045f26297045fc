// Edit as new branch on messages of several blocks: the editor shows the text blocks joined by a
// newline; the copy keeps the blocks the user did not touch, images where they were, and an
// unchanged text gives the message's content verbatim. A synthetic prompt the user rewrote is
// no longer marked synthetic (it is the user's own message now).
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createHarness, type Harness, importText, removeDir } from "../pipelines/harness.ts";

let h: Harness;

beforeEach(() => {
  h = createHarness();
});
afterEach(() => {
  h.close();
  removeDir(h.dir);
});

const IMAGE_A = { type: "image", data: "iVBORw0KGgoAAAA=", mimeType: "image/png" };
const IMAGE_B = { type: "image", data: "R0lGODlhAQABAAA=", mimeType: "image/gif" };
const USER_CONTENT = [
  { type: "text", text: "Compare the first screenshot:" },
  IMAGE_A,
  { type: "text", text: "with the second one:" },
  IMAGE_B,
  { type: "text", text: "Which layout is better?" },
];
const CUSTOM_CONTENT = [
  { type: "text", text: "Rules in effect:" },
  { type: "text", text: "- no force pushes" },
];

function sessionText(): string {
  const lines = [
    {
      type: "session",
      version: 3,
      id: "0195f0c2-2222-7000-8000-00000000e1b1",
      timestamp: "2026-01-01T00:00:00.000Z",
      cwd: "/work/p",
    },
    {
      type: "message",
      id: "u1",
      parentId: null,
      timestamp: "2026-01-01T00:00:01.000Z",
      message: { role: "user", content: USER_CONTENT, timestamp: 1767225601000 },
    },
    {
      type: "custom_message",
      id: "cm1",
      parentId: "u1",
      timestamp: "2026-01-01T00:00:02.000Z",
      customType: "rules",
      content: CUSTOM_CONTENT,
      display: false,
    },
    {
      type: "message",
      id: "s1",
      parentId: "cm1",
      timestamp: "2026-01-01T00:00:03.000Z",
      message: {
        role: "user",
        content: "Continue if you have next steps.",
        synthetic: true,
        timestamp: 1767225603000,
      },
    },
  ];
  return `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`;
}

/** The text the editor opens with (EditActions: the LLM view's text blocks joined by "\n"). */
const joined = (content: { type: string; text?: string }[]) =>
  content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("\n");

async function editedEntry(
  sessionId: string,
  entryId: string,
  text: string,
): Promise<Record<string, unknown>> {
  const result = await h.call("edits:edit-message", { sessionId, entryId, text });
  const { entries } = await h.call("session:get", { sessionId });
  const copy = entries.find((stored) => stored.entry.id === result.entryId)?.entry;
  if (!copy) throw new Error("no edited copy");
  return copy as unknown as Record<string, unknown>;
}

const contentOf = (entry: Record<string, unknown>) =>
  entry.type === "custom_message" ? entry.content : (entry.message as { content: unknown }).content;

describe("edit as new branch, messages of several blocks", () => {
  it("an unchanged text copies the content verbatim (images stay between their texts)", async () => {
    const sessionId = await importText(h, sessionText(), "blocks");
    const copy = await editedEntry(sessionId, "u1", joined(USER_CONTENT));
    expect(contentOf(copy)).toEqual(USER_CONTENT);
    const custom = await editedEntry(sessionId, "cm1", joined(CUSTOM_CONTENT));
    expect(contentOf(custom)).toEqual(CUSTOM_CONTENT);
  });

  it("a change inside one text block changes that block only", async () => {
    const sessionId = await importText(h, sessionText(), "blocks");
    const text = joined(USER_CONTENT).replace("second one", "second screenshot");
    const copy = await editedEntry(sessionId, "u1", text);
    expect(contentOf(copy)).toEqual([
      USER_CONTENT[0],
      IMAGE_A,
      { type: "text", text: "with the second screenshot:" },
      IMAGE_B,
      USER_CONTENT[4],
    ]);
    const added = await editedEntry(sessionId, "cm1", `${joined(CUSTOM_CONTENT)} on main`);
    expect(contentOf(added)).toEqual([
      CUSTOM_CONTENT[0],
      { type: "text", text: "- no force pushes on main" },
    ]);
  });

  it("a change across blocks joins only the blocks it spans; the images keep their order", async () => {
    const sessionId = await importText(h, sessionText(), "blocks");
    const text = joined(USER_CONTENT).replace("screenshot:\nwith the", "screenshot, then the");
    const copy = await editedEntry(sessionId, "u1", text);
    expect(contentOf(copy)).toEqual([
      { type: "text", text: "Compare the first screenshot, then the second one:" },
      IMAGE_A,
      IMAGE_B,
      USER_CONTENT[4],
    ]);
  });

  it("a rewritten synthetic prompt is the user's message; an unchanged one stays synthetic", async () => {
    const sessionId = await importText(h, sessionText(), "blocks");
    const same = await editedEntry(sessionId, "s1", "Continue if you have next steps.");
    expect((same.message as { synthetic?: boolean }).synthetic).toBe(true);
    const rewritten = await editedEntry(sessionId, "s1", "Stop here and list what is left.");
    expect(rewritten.message).not.toHaveProperty("synthetic");
    expect((rewritten.message as { content: unknown }).content).toBe("Stop here and list what is left.");
  });
});
