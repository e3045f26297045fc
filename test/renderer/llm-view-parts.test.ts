// How the LLM view splits a provider message into display parts, labels it, collapses long
// bodies, and computes the context bar's figures.
import { describe, expect, it } from "vitest";
import type {
  AssistantMessage,
  LlmMessage,
  ToolResultMessage,
  UserMessage,
} from "../../core/session/entries.ts";
import { contextFigures } from "../../renderer/src/features/llm-view/context-figures.ts";
import {
  base64Bytes,
  formatTokens,
  isLong,
  limitParts,
  messageKindLabel,
  messageParts,
  splitSummary,
} from "../../renderer/src/features/llm-view/message-parts.ts";

const user = (content: UserMessage["content"]): UserMessage => ({ role: "user", content, timestamp: 0 });
const assistant = (
  content: AssistantMessage["content"],
  extra: Partial<AssistantMessage> = {},
): AssistantMessage => ({
  role: "assistant",
  content,
  provider: "anthropic",
  model: "claude-test",
  timestamp: 0,
  stopReason: "stop",
  ...extra,
});
const toolResult = (content: ToolResultMessage["content"], isError = false): ToolResultMessage => ({
  role: "toolResult",
  toolCallId: "c1",
  toolName: "bash",
  content,
  isError,
  timestamp: 0,
});

describe("messageParts", () => {
  it("recognises a summary wrapped by a context template", () => {
    const text = "Framing paragraph.\n\n<summary>\n## Goal\nFix it\n</summary>";
    expect(splitSummary(text)).toEqual({
      framing: "Framing paragraph.",
      summary: "## Goal\nFix it",
      after: "",
    });
    expect(messageParts(user([{ type: "text", text }]), undefined, undefined, true)).toEqual([
      { kind: "summary", framing: "Framing paragraph.", summary: "## Goal\nFix it", after: "" },
    ]);
    expect(splitSummary("talking about <summary>\ninline</summary>")).toBeNull();
    expect(splitSummary("no tags")).toBeNull();
  });

  it("draws only a compaction or branch summary as one: other text with a <summary> line stays whole, every space kept", () => {
    // A bash run printing an HTML file: its fenced block was split and "   Hidden" lost its spaces.
    const text =
      "Ran `cat page.html`\n```\n<details>\n<summary>\nClick me\n</summary>\n   Hidden\n</details>\n```";
    expect(messageParts(user([{ type: "text", text }]))).toEqual([{ kind: "markdown", text }]);
    expect(messageParts(user(text))).toEqual([{ kind: "markdown", text }]);
  });

  it("spells out bidi overrides and isolates, so hidden reordering cannot disguise what the model receives", () => {
    const rlo = "\u202E";
    const parts = messageParts(
      assistant(
        [
          { type: "text", text: `Open invoice${rlo}fdp.exe` },
          { type: "toolCall", id: "c1", name: `re${rlo}da`, arguments: { path: `x${rlo}y.txt` } },
        ],
        { stopReason: "error", errorMessage: `bad\u2067x\u2069` },
      ),
    );
    // `copy`: the text as the model receives it, which "Copy full text" copies.
    expect(parts).toEqual([
      { kind: "markdown", text: "Open invoice\\u202efdp.exe", copy: `Open invoice${rlo}fdp.exe` },
      { kind: "toolCall", name: "re\\u202eda", id: "c1", argumentsJson: '{\n  "path": "x\\u202ey.txt"\n}' },
      {
        kind: "error",
        text: "Reply ended with error: bad\\u2067x\\u2069",
        copy: "Reply ended with error: bad\u2067x\u2069",
      },
    ]);
    expect(messageParts(toolResult([{ type: "text", text: `out${rlo}put` }]))).toEqual([
      { kind: "output", text: "out\\u202eput", copy: `out${rlo}put` },
    ]);
    // Right-to-left text and its marks are shown as they are.
    expect(messageParts(user("مرحبا \u200Fעברית"))).toEqual([
      { kind: "markdown", text: "مرحبا \u200Fעברית" },
    ]);
  });

  it("spells out control characters (colour codes of a recorded tool output, NUL, BEL), as it does bidi overrides", () => {
    const esc = "\u001b";
    const output = `${esc}[31mred${esc}[0m \u0007 \u0000\tcol\r\nnext`;
    // Tabs and line breaks stay; ESC, BEL and NUL are spelled out (any font draws that) instead
    // of a box or nothing before "[31m".
    expect(messageParts(toolResult([{ type: "text", text: output }]))).toEqual([
      { kind: "output", text: "\\u001b[31mred\\u001b[0m \\u0007 \\u0000\tcol\r\nnext", copy: output },
    ]);
    expect(messageParts(user(`a${esc}[1mb\u007f`))).toEqual([
      { kind: "markdown", text: "a\\u001b[1mb\\u007f", copy: `a${esc}[1mb\u007f` },
    ]);
  });

  it("splits user text and images", () => {
    expect(messageParts(user("hello"))).toEqual([{ kind: "markdown", text: "hello" }]);
    expect(
      messageParts(
        user([
          { type: "text", text: "see" },
          { type: "image", mimeType: "image/png", data: "AAAA" },
        ]),
      ),
    ).toEqual([
      { kind: "markdown", text: "see" },
      { kind: "image", mimeType: "image/png", bytes: 3 },
    ]);
  });

  it("keeps thinking, text and tool calls of an assistant reply apart, and reports a failed reply", () => {
    const parts = messageParts(
      assistant(
        [
          { type: "thinking", thinking: "hmm" },
          { type: "text", text: "I will run it" },
          { type: "toolCall", id: "c1", name: "bash", arguments: { command: "ls", cwd: "/" } },
        ],
        { stopReason: "error", errorMessage: "overloaded" },
      ),
    );
    expect(parts).toEqual([
      { kind: "thinking", text: "hmm" },
      { kind: "markdown", text: "I will run it" },
      { kind: "toolCall", id: "c1", name: "bash", argumentsJson: '{\n  "command": "ls",\n  "cwd": "/"\n}' },
      { kind: "error", text: "Reply ended with error: overloaded" },
    ]);
  });

  it("shows a block of another kind (oh-my-pi's redacted thinking, a fallback marker) as what it is, never as a tool call", () => {
    const fallback = { type: "fallback", from: { model: "a" }, to: { model: "b" } };
    const reply = assistant([
      { type: "text", text: "before" },
      { type: "redactedThinking", data: "ENCRYPTED" },
      fallback,
      { type: "text", text: "after" },
    ] as unknown as AssistantMessage["content"]);
    expect(messageParts(reply)).toEqual([
      { kind: "markdown", text: "before" },
      {
        kind: "other",
        label: "redacted thinking",
        text: "9 characters of reasoning the provider encrypted (not readable)",
      },
      { kind: "other", label: "fallback block", text: JSON.stringify(fallback, null, 2) },
      { kind: "markdown", text: "after" },
    ]);
    const document = { type: "document", source: "x" };
    expect(
      messageParts(user([{ type: "text", text: "see" }, document] as unknown as UserMessage["content"])),
    ).toEqual([
      { kind: "markdown", text: "see" },
      { kind: "other", label: "document block", text: JSON.stringify(document, null, 2) },
    ]);
    expect(messageParts(toolResult([document] as unknown as ToolResultMessage["content"]))).toEqual([
      { kind: "other", label: "document block", text: JSON.stringify(document, null, 2) },
    ]);
  });

  it("shows what a hand-edited message holds where blocks belong (a string, null, no array) instead of failing the page", () => {
    const stored = (role: string, content: unknown) =>
      ({ role, content, timestamp: 0 }) as unknown as LlmMessage;
    expect(messageParts(stored("assistant", "plain string reply"))).toEqual([
      { kind: "markdown", text: "plain string reply" },
    ]);
    expect(messageParts(stored("toolResult", "string output"))).toEqual([
      { kind: "output", text: "string output" },
    ]);
    expect(messageParts(stored("toolResult", null))).toEqual([]);
    expect(
      messageParts(stored("user", [null, { type: "text", text: "after" }, { type: "text", text: 5 }])),
    ).toEqual([
      { kind: "other", label: "block of no type", text: "null" },
      { kind: "markdown", text: "after" },
      { kind: "other", label: "text block", text: JSON.stringify({ type: "text", text: 5 }, null, 2) },
    ]);
  });

  it("shows tool call arguments nested 5,000 deep as their JSON, not as [object Object]", () => {
    const deep = JSON.parse(`${'{"a":'.repeat(5_000)}1${"}".repeat(5_000)}`) as Record<string, unknown>;
    const [part] = messageParts(assistant([{ type: "toolCall", id: "c1", name: "x", arguments: deep }]));
    const json = part?.kind === "toolCall" ? part.argumentsJson : "";
    expect(json.replace(/\s+/g, "")).toBe(`${'{"a":'.repeat(5_000)}1${"}".repeat(5_000)}`);
  });

  it("shows tool output preformatted, with image placeholders", () => {
    expect(
      messageParts(
        toolResult([
          { type: "text", text: "<b>out</b>" },
          { type: "image", mimeType: "image/jpeg", data: "AAAAAA==" },
        ]),
      ),
    ).toEqual([
      { kind: "output", text: "<b>out</b>" },
      { kind: "image", mimeType: "image/jpeg", bytes: 4 },
    ]);
    expect(base64Bytes(undefined)).toBe(0);
  });

  it("an image kept in the agent's blob store shows the blob's size, or that the store has none — never its ref's length", () => {
    const found = `blob:sha256:${"ab".repeat(32)}`;
    const missing = `blob:sha256:${"cd".repeat(32)}`;
    const message = toolResult([
      { type: "image", mimeType: "image/png", data: found },
      { type: "image", mimeType: "image/jpeg", data: missing },
    ]);
    expect(messageParts(message, undefined, { [found]: 2048, [missing]: null })).toEqual([
      { kind: "image", mimeType: "image/png", bytes: 2048, blob: { ref: found, found: true } },
      { kind: "image", mimeType: "image/jpeg", bytes: 0, blob: { ref: missing, found: false } },
    ]);
    // Without the store's answer (an older server) the size is unknown, not the ref's 57 bytes.
    expect(messageParts(message)[0]).toEqual({
      kind: "image",
      mimeType: "image/png",
      bytes: 0,
      blob: { ref: found, found: false },
    });
    expect(base64Bytes(found)).toBe(0);
  });

  it("collapses long bodies and cuts a collapsed body to its beginning", () => {
    expect(isLong([{ kind: "markdown", text: "short" }])).toBe(false);
    expect(isLong([{ kind: "output", text: "x".repeat(5000) }])).toBe(true);
    expect(isLong([{ kind: "output", text: "line\n".repeat(40) }])).toBe(true);
    const limited = limitParts(
      [
        { kind: "markdown", text: "a".repeat(100) },
        { kind: "output", text: "b".repeat(1000) },
        { kind: "output", text: "c".repeat(50) },
      ],
      300,
    );
    expect(limited.parts).toEqual([
      { kind: "markdown", text: "a".repeat(100) },
      { kind: "output", text: "b".repeat(200) },
    ]);
    expect(limited.hiddenChars).toBe(850);
  });

  it("cuts a collapsed summary and tool call too, on a line boundary (a 20 MB summary used to stay whole)", () => {
    const summary = Array.from({ length: 2000 }, (_, i) => `line ${i} 🙂`).join("\n");
    const limited = limitParts(
      [
        { kind: "summary", framing: "Framing.", summary, after: "after" },
        { kind: "markdown", text: "tail" },
      ],
      300,
    );
    const part = limited.parts[0];
    if (part?.kind !== "summary") throw new Error("the summary part is gone");
    expect(part.framing).toBe("Framing.");
    expect(part.summary.length).toBeLessThanOrEqual(300 - "Framing.".length);
    expect(summary.startsWith(part.summary)).toBe(true);
    expect(part.summary.endsWith("\n")).toBe(true);
    expect(part.after).toBe("");
    expect(limited.parts).toHaveLength(1);
    expect(limited.hiddenChars).toBe(summary.length - part.summary.length + "after".length + "tail".length);

    const args = JSON.stringify({ content: "x\n".repeat(5000) }, null, 2);
    const call = limitParts([{ kind: "toolCall", name: "write", id: "c1", argumentsJson: args }], 1000);
    const cutCall = call.parts[0];
    if (cutCall?.kind !== "toolCall") throw new Error("the tool call part is gone");
    expect(cutCall.argumentsJson.length).toBeLessThanOrEqual(1000);
    expect(call.hiddenChars).toBe(args.length - cutCall.argumentsJson.length);
  });

  it("labels messages by the entry they come from", () => {
    const u = user("x");
    expect(messageKindLabel(u, "compaction", "compaction")).toBe("compaction summary");
    expect(messageKindLabel(u, "branch_summary", "branch_summary")).toBe("branch summary");
    expect(messageKindLabel(u, "message", "bashExecution")).toBe("bash");
    expect(messageKindLabel(u, "custom_message", "custom_message")).toBe("custom message");
    expect(messageKindLabel(toolResult([]), "message", "toolResult")).toBe("tool result");
    expect(messageKindLabel(u, undefined, undefined)).toBe("user");
    expect(formatTokens(950)).toBe("950");
    expect(formatTokens(12_345)).toBe("12.3k");
    expect(formatTokens(128_000)).toBe("128k");
  });
});

describe("contextFigures", () => {
  it("places estimate, measurement and threshold on the window", () => {
    const figures = contextFigures(
      { estimatedTokens: 32_000, measuredTokens: 64_000 },
      { contextWindow: 128_000, reserveTokens: 16_384, compactionEnabled: true },
    );
    expect(figures).toMatchObject({
      window: 128_000,
      threshold: 111_616,
      scale: 128_000,
      estimatedPercent: 25,
      measuredPercent: 50,
      level: "ok",
    });
    expect(figures.thresholdPercent).toBeCloseTo(87.2, 1);
  });

  it("judges the threshold strictly, on the measured figure when there is one (SPEC §4.3)", () => {
    const limits = { contextWindow: 100_000, reserveTokens: 10_000, compactionEnabled: true };
    expect(contextFigures({ estimatedTokens: 1, measuredTokens: 90_000 }, limits).level).toBe("ok");
    expect(contextFigures({ estimatedTokens: 1, measuredTokens: 95_000 }, limits).level).toBe(
      "above-threshold",
    );
    expect(contextFigures({ estimatedTokens: 95_000, measuredTokens: null }, limits).level).toBe(
      "above-threshold",
    );
    expect(contextFigures({ estimatedTokens: 1, measuredTokens: 120_000 }, limits)).toMatchObject({
      level: "over-window",
      measuredPercent: 100,
    });
  });

  it("does not judge a stale measurement: right after a compaction the estimate decides", () => {
    const limits = { contextWindow: 100_000, reserveTokens: 10_000, compactionEnabled: true };
    const view = { estimatedTokens: 5_000, measuredTokens: 95_000 };
    expect(contextFigures(view, limits, true)).toMatchObject({
      level: "ok",
      measured: 95_000,
      measuredPercent: 95,
      measuredStale: true,
    });
    expect(contextFigures({ estimatedTokens: 120_000, measuredTokens: 95_000 }, limits, true).level).toBe(
      "over-window",
    );
    expect(contextFigures(view, limits, false)).toMatchObject({ level: "above-threshold", measuredStale: false });
    expect(contextFigures({ ...view, measuredTokens: null }, limits, true).measuredStale).toBe(false);
  });

  it("says what is above the threshold does not compact while automatic compaction is off", () => {
    const on = { contextWindow: 100_000, reserveTokens: 10_000, compactionEnabled: true };
    const view = { estimatedTokens: 1, measuredTokens: 95_000 };
    expect(contextFigures(view, on).warning).toBe(
      "This context is above the compaction threshold: the agent would compact after the next reply.",
    );
    const off = contextFigures(view, { ...on, compactionEnabled: false });
    expect(off.level).toBe("above-threshold");
    expect(off.warning).toBe(
      "This context is above the compaction threshold; automatic compaction is off, so nothing compacts it.",
    );
    expect(contextFigures({ estimatedTokens: 1, measuredTokens: 120_000 }, on).warning).toBe(
      "This context is larger than the model's window: the next request would overflow.",
    );
    expect(contextFigures({ estimatedTokens: 1, measuredTokens: 1 }, on).warning).toBeNull();
  });

  it("without a model the window and threshold are unknown and the bar scales to the figures", () => {
    const figures = contextFigures(
      { estimatedTokens: 1000, measuredTokens: 2000 },
      { contextWindow: null, reserveTokens: 16_384, compactionEnabled: true },
    );
    expect(figures).toMatchObject({
      window: null,
      threshold: null,
      thresholdPercent: null,
      level: "unknown",
      scale: 2300,
    });
    expect(contextFigures({ estimatedTokens: 0, measuredTokens: null }, null).scale).toBe(1);
  });
});
