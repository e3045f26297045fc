// serializeConversation: SPEC §6.1 and its verified example.
import { describe, expect, it } from "vitest";
import { serializeConversation } from "../../../core/compaction/serialize.ts";
import type { LlmMessage } from "../../../core/session/entries.ts";
import { assistant, toolResult, user } from "../_builders.ts";

const IMAGE = { type: "image" as const, data: "AAAA", mimeType: "image/png" };

describe("serializeConversation (SPEC §6.1)", () => {
  it("reproduces the verified example exactly", () => {
    const messages: LlmMessage[] = [
      {
        ...user("Fix bug"),
        content: [{ type: "text", text: "Fix bug" }, IMAGE, { type: "text", text: " in a.ts" }],
      },
      assistant("", {
        content: [
          { type: "thinking", thinking: "hmm" },
          { type: "text", text: "Looking" },
          { type: "toolCall", id: "1", name: "read", arguments: { path: "a.ts", limit: 5 } },
          { type: "toolCall", id: "2", name: "bash", arguments: { command: "ls" } },
          { type: "thinking", thinking: "more" },
        ],
      }),
      toolResult("", {
        content: [
          { type: "text", text: "line1" },
          { type: "text", text: "line2" },
        ],
      }),
      toolResult("", { content: [IMAGE] }),
      { ...user(""), content: [] },
    ];
    expect(serializeConversation(messages)).toBe(
      [
        "[User]: Fix bug in a.ts",
        "[Assistant thinking]: hmm\nmore",
        "[Assistant]: Looking",
        '[Assistant tool calls]: read(path="a.ts", limit=5); bash(command="ls")',
        "[Tool result]: line1line2",
      ].join("\n\n"),
    );
  });

  it("joins several assistant text blocks with a newline and uses string user content as is", () => {
    const messages: LlmMessage[] = [
      { role: "user", content: "plain", timestamp: 0 },
      assistant("", {
        content: [
          { type: "text", text: "a" },
          { type: "text", text: "b" },
        ],
      }),
    ];
    expect(serializeConversation(messages)).toBe("[User]: plain\n\n[Assistant]: a\nb");
  });

  it("writes tool calls without arguments as name() and JSON-encodes nested values", () => {
    const messages: LlmMessage[] = [
      assistant("", {
        content: [
          { type: "toolCall", id: "1", name: "todo", arguments: {} },
          { type: "toolCall", id: "2", name: "edit", arguments: { path: "x", edits: [{ a: 1 }], ok: true } },
        ],
      }),
    ];
    expect(serializeConversation(messages)).toBe(
      '[Assistant tool calls]: todo(); edit(path="x", edits=[{"a":1}], ok=true)',
    );
  });

  it("does not truncate long tool results, has no tool name or error flag, and gives '' for nothing", () => {
    const long = "y".repeat(5000);
    expect(serializeConversation([toolResult(long, { isError: true, toolName: "bash" })])).toBe(
      `[Tool result]: ${long}`,
    );
    expect(serializeConversation([])).toBe("");
  });

  it("skips malformed content instead of throwing", () => {
    const bad = [
      { role: "assistant", content: "oops" },
      { role: "user", content: [null, { type: "text" }] },
      { role: "toolResult", content: undefined },
    ] as unknown as LlmMessage[];
    expect(serializeConversation(bad)).toBe("");
  });
});
