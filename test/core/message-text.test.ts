// The model an assistant message names, as the LLM view and `canopy context` head it: replies
// without provider/model fields (or with only one, or empty ones) showed "undefined/undefined".
// Which replies failed: one rule (failedStop) for the heading's stop reason and the error line.
import { describe, expect, it } from "vitest";
import type { AssistantMessage, LlmMessage } from "../../core/session/entries.ts";
import { failedStop, messageFailure, messageHeading, modelLabel } from "../../core/session/message-text.ts";

/** A reply as a session file may carry it: the fields given, nothing else. */
function reply(fields: Record<string, unknown>): AssistantMessage {
  return {
    role: "assistant",
    content: [{ type: "text", text: "Done." }],
    timestamp: 1,
    ...fields,
  } as AssistantMessage;
}

describe("an assistant message's model", () => {
  it("is provider/model when it has both", () => {
    const message = reply({ provider: "anthropic", model: "claude-sonnet-4" });
    expect(modelLabel(message)).toBe("anthropic/claude-sonnet-4");
    expect(messageHeading(message)).toBe("assistant · anthropic/claude-sonnet-4");
  });

  it("is nothing when it has neither, never undefined/undefined", () => {
    const message = reply({});
    expect(modelLabel(message)).toBe("");
    expect(messageHeading(message)).toBe("assistant");
  });

  it("is only what is there: one of the two, empty or non-text fields left out", () => {
    expect(modelLabel(reply({ model: "gpt-5" }))).toBe("gpt-5");
    expect(modelLabel(reply({ provider: "openai" }))).toBe("openai");
    expect(modelLabel(reply({ provider: "", model: "gpt-5" }))).toBe("gpt-5");
    expect(modelLabel(reply({ provider: null, model: 4 }))).toBe("");
    expect(messageHeading(reply({ model: "gpt-5" }))).toBe("assistant · gpt-5");
  });
});

describe("a tool result's heading", () => {
  it("names its tool, and says only 'tool result' when a hand-edited one has no tool name", () => {
    const result = (fields: Record<string, unknown>) =>
      ({
        role: "toolResult",
        toolCallId: "c1",
        content: [],
        isError: false,
        timestamp: 1,
        ...fields,
      }) as unknown as LlmMessage;
    expect(messageHeading(result({ toolName: "read" }))).toBe("tool result · read");
    expect(messageHeading(result({}))).toBe("tool result");
  });
});

describe("a reply that failed", () => {
  const stops = ["stop", "length", "toolUse", "error", "aborted", "", undefined, null, 3];

  it("is an assistant message whose stop reason is error or aborted, nothing else", () => {
    expect(stops.map((stopReason) => failedStop(reply({ stopReason })))).toEqual([
      null,
      null,
      null,
      "error",
      "aborted",
      null,
      null,
      null,
      null,
    ]);
    // Another role with a hand-edited stop reason is no failed reply.
    const asUser = {
      role: "user",
      content: "Hi",
      timestamp: 1,
      stopReason: "error",
    } as unknown as LlmMessage;
    expect(failedStop(asUser)).toBeNull();
    expect(messageHeading(asUser)).toBe("user");
    expect(messageFailure({ ...asUser, errorMessage: "boom" } as unknown as LlmMessage)).toBeNull();
  });

  it("is what the heading names and what the error line is said for, for every stop reason", () => {
    for (const stopReason of stops) {
      const message = reply({ model: "m", stopReason, errorMessage: "529  Overloaded" });
      const failed = failedStop(message);
      expect(messageHeading(message)).toBe(failed === null ? "assistant · m" : `assistant · m · ${failed}`);
      expect(messageFailure(message)).toBe(failed === null ? null : `[${failed}] 529 Overloaded`);
    }
    // A failed reply without an error message: the heading says so, no error line.
    expect(messageFailure(reply({ stopReason: "error", errorMessage: " " }))).toBeNull();
    expect(messageHeading(reply({ stopReason: "aborted" }))).toBe("assistant · aborted");
  });
});
