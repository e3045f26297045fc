// Repeated request notes said once (request-note-groups.ts): on a long session planned for
// Canopy's request, "thinking not sent" on every reply becomes one group that names every
// message, while a note that occurs once or twice stays on its message; words and numbers.
import { describe, expect, it } from "vitest";
import type { AssistantMessage, LlmMessage } from "../../core/session/entries.ts";
import { planRequest, type RequestChange, type RequestTarget } from "../../core/session/request-messages.ts";
import {
  GROUP_NOTES_AT,
  groupRequestNotes,
  messageNumbers,
  requestGroupText,
  requestNoteFlag,
} from "../../core/session/request-note-groups.ts";
import { assistant, toolResult, user } from "./_builders.ts";

const canopy: RequestTarget = { provider: "127.0.0.1:1234", api: "openai-completions", sender: "canopy" };

function thinkingReply(text: string): AssistantMessage {
  return assistant(text, {
    content: [
      { type: "thinking", thinking: "let me think" },
      { type: "text", text },
    ],
  });
}

/** `turns` user/reply pairs, every reply with thinking. */
function longSession(turns: number): LlmMessage[] {
  return Array.from({ length: turns }, (_, i) => [
    user(`question ${i}`),
    thinkingReply(`answer ${i}`),
  ]).flat();
}

describe("groupRequestNotes", () => {
  it("groups 'thinking not sent' of 37 replies into one, naming each reply", () => {
    const view = longSession(37);
    const plan = planRequest(view, canopy, { blockImages: false });
    expect(plan.changes.flat()).toHaveLength(37);
    const groups = groupRequestNotes(plan.changes);
    expect(groups).toHaveLength(1);
    const [group] = groups;
    expect(group?.key).toBe("thinking-removed:canopy");
    // Every reply, by its index in the view: nothing is lost.
    expect(group?.indexes).toEqual(Array.from({ length: 37 }, (_, i) => 2 * i + 1));
    expect(group && requestGroupText(group)).toBe(
      "Thinking of 37 replies is not sent: Canopy's OpenAI-compatible request carries none.",
    );
    expect(group && requestNoteFlag(group.changes[0] as RequestChange)).toBe("thinking not sent");
  });

  it("leaves a kind that occurs fewer than GROUP_NOTES_AT times on its messages, and groups the rest", () => {
    const view: LlmMessage[] = [
      ...longSession(5),
      // One tool result no call waits for: its note must stay visible on its own.
      toolResult("stray output", { toolCallId: "nobody", toolName: "bash" }),
    ];
    const plan = planRequest(view, canopy, { blockImages: false });
    const groups = groupRequestNotes(plan.changes);
    expect(groups.map((group) => group.key)).toEqual(["thinking-removed:canopy"]);
    expect(plan.changes[10]).toEqual([{ kind: "result-as-user" }]);
    expect(GROUP_NOTES_AT).toBe(3);
    // Two of a kind stay as they are.
    expect(groupRequestNotes(planRequest(longSession(2), canopy, { blockImages: false }).changes)).toEqual(
      [],
    );
  });

  it("counts images of a group over all its messages, and keeps each message's own change", () => {
    const withImages = (n: number): LlmMessage =>
      ({
        role: "user",
        content: Array.from({ length: n }, () => ({ type: "image", data: "AAAA", mimeType: "image/png" })),
        timestamp: 1,
      }) as LlmMessage;
    const plan = planRequest([withImages(1), withImages(2), withImages(3)], canopy, { blockImages: true });
    const [group] = groupRequestNotes(plan.changes);
    expect(group?.changes).toEqual([
      { kind: "images-blocked", count: 1 },
      { kind: "images-blocked", count: 2 },
      { kind: "images-blocked", count: 3 },
    ]);
    expect(group && requestGroupText(group)).toBe(
      "6 images of 3 messages are sent as “Image reading is disabled.” (images.blockImages).",
    );
  });

  it("keeps kinds with different words apart (dropped for different reasons)", () => {
    const foreignFailed = assistant("", {
      provider: "openai",
      api: "openai-responses",
      stopReason: "error",
      content: [],
    });
    const onlyThinking = assistant("", { content: [{ type: "thinking", thinking: "hmm" }] });
    const view: LlmMessage[] = [
      user("a"),
      foreignFailed,
      user("b"),
      foreignFailed,
      user("c"),
      foreignFailed,
      user("d"),
      onlyThinking,
    ];
    const groups = groupRequestNotes(planRequest(view, canopy, { blockImages: false }).changes);
    expect(groups.map((group) => [group.key, group.indexes])).toEqual([
      ["dropped:failed-foreign", [1, 3, 5]],
    ]);
  });
});

describe("messageNumbers", () => {
  it("says message numbers 1-based, consecutive runs as ranges", () => {
    expect(messageNumbers([1, 3, 5])).toBe("2, 4, 6");
    expect(messageNumbers([0, 1, 2, 3, 7, 9, 10])).toBe("1–4, 8, 10–11");
    expect(messageNumbers([])).toBe("");
  });
});
