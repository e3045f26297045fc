// Every place a provider/model (or provider · api · model) pair becomes text names only what the
// message or entry has: replies without a provider or a model showed "openai/", "undefined/…" or
// "undefined · …" in the entry rows, the request notes and the request's target line.
import { describe, expect, it } from "vitest";
import type { AssistantMessage, SessionEntry } from "../../core/session/entries.ts";
import { entryText } from "../../core/session/describe.ts";
import { requestChangeText, requestTargetText } from "../../core/session/request-notes.ts";
import { sessionRequestTarget } from "../../core/session/request-messages.ts";
import { toEntryRow } from "../../main/library/entry-rows.ts";

function reply(fields: Record<string, unknown>): AssistantMessage {
  return {
    role: "assistant",
    content: [{ type: "text", text: "Done." }],
    timestamp: 1,
    stopReason: "error",
    ...fields,
  } as AssistantMessage;
}

function entry(fields: Record<string, unknown>): SessionEntry {
  return { type: "message", id: "a1", parentId: null, timestamp: "2026-01-01T00:00:00Z", message: reply(fields) } as SessionEntry;
}

const failedForeign = { kind: "dropped", reason: "failed-foreign" } as const;

describe("a provider/model pair as text", () => {
  it("the entry row's model column has only the parts the reply names", () => {
    const model = (fields: Record<string, unknown>) => toEntryRow(entry(fields), 0, "{}", "file").model;
    expect(model({ provider: "openai", model: "gpt-5" })).toBe("openai/gpt-5");
    expect(model({ provider: "openai" })).toBe("openai");
    expect(model({ model: "gpt-5" })).toBe("gpt-5");
    expect(model({ provider: "", model: "" })).toBeNull();
    expect(model({})).toBeNull();
  });

  it("a dropped reply's note names its provider and API, or says it has none", () => {
    expect(requestChangeText(failedForeign, reply({ provider: "openai", api: "openai-responses" }))).toContain(
      "(openai · openai-responses)",
    );
    expect(requestChangeText(failedForeign, reply({ api: "openai-responses" }))).toContain("(openai-responses)");
    const none = requestChangeText(failedForeign, reply({}));
    expect(none).not.toContain("undefined");
    expect(none).not.toContain("()");
  });

  it("the agent's target line never says undefined for a reply without provider", () => {
    const target = sessionRequestTarget([reply({ model: "gpt-5", api: "openai-responses" })]);
    const text = requestTargetText(target);
    expect(text).not.toContain("undefined");
    expect(text).toContain("(openai-responses · gpt-5)");
    const bare = requestTargetText(sessionRequestTarget([reply({})]));
    expect(bare).not.toContain("undefined");
    expect(bare).not.toContain("()");
  });

  it("a legacy model_change names what it has, not ?/? placeholders", () => {
    const change = (fields: Record<string, unknown>) =>
      entryText({ type: "model_change", id: "m1", parentId: null, timestamp: "t", ...fields } as SessionEntry);
    expect(change({ provider: "openai", modelId: "gpt-5" })).toBe("openai/gpt-5");
    expect(change({ modelId: "gpt-5" })).toBe("gpt-5");
    expect(change({ model: "anthropic/claude" })).toBe("anthropic/claude");
  });
});
