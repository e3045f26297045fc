// Content blocks other than text, thinking, tool calls and images — oh-my-pi writes Anthropic's
// redacted thinking as {type:"redactedThinking", data} and model fallbacks as {type:"fallback"} —
// are in the message list the agent builds: `canopy context` named them "[tool call undefined]
// undefined" (and an unknown user block "[image undefined]"); they now say what they are.
import { describe, expect, it } from "vitest";
import type { LlmMessage } from "../../core/session/entries.ts";
import { messageText } from "../../core/session/message-text.ts";
import { describeOtherBlock } from "../../core/session/other-blocks.ts";

const reply = (content: unknown[]): LlmMessage =>
  ({ role: "assistant", content, provider: "anthropic", model: "claude-x", timestamp: 1 }) as LlmMessage;

describe("content blocks of other kinds", () => {
  it("redacted thinking says it is encrypted and how long, not its payload", () => {
    expect(describeOtherBlock({ type: "redactedThinking", data: "x".repeat(1234) })).toEqual({
      label: "redacted thinking",
      text: "1,234 characters of reasoning the provider encrypted (not readable)",
    });
  });

  it("any other block shows its type and its JSON", () => {
    const block = { type: "fallback", from: { model: "a" }, to: { model: "b" } };
    expect(describeOtherBlock(block)).toEqual({
      label: "fallback block",
      text: JSON.stringify(block, null, 2),
    });
    expect(describeOtherBlock({ kind: 3 }).label).toBe("block of no type");
  });

  it("canopy context's text names them, in place, between the reply's other blocks", () => {
    const text = messageText(
      reply([
        { type: "thinking", thinking: "visible" },
        { type: "redactedThinking", data: "ENC" },
        { type: "fallback", from: { model: "a" }, to: { model: "b" } },
        { type: "text", text: "answer" },
      ]),
    );
    expect(text).not.toContain("undefined");
    expect(text).toBe(
      [
        "[thinking]\nvisible",
        "[redacted thinking] 3 characters of reasoning the provider encrypted (not readable)",
        `[fallback block] ${JSON.stringify({ type: "fallback", from: { model: "a" }, to: { model: "b" } }, null, 2)}`,
        "answer",
      ].join("\n\n"),
    );
  });

  it("a user or tool result block that is no text or image is not called an image", () => {
    const user = {
      role: "user",
      content: [
        { type: "text", text: "next" },
        { type: "document", source: "x" },
      ],
      timestamp: 1,
    };
    expect(messageText(user as LlmMessage)).toBe(
      `next\n[document block] ${JSON.stringify({ type: "document", source: "x" }, null, 2)}`,
    );
  });
});
