// convertToLlm: SPEC §3.4, behaviours 31–32, D4, D8.
import { describe, expect, it } from "vitest";
import type {
  AgentMessage,
  BashExecutionMessage,
  FileMentionMessage,
  PythonExecutionMessage,
} from "../../core/session/entries.ts";
import {
  bashExecutionToText,
  convertToLlm,
  convertToLlmWithSources,
  formatOutputNotice,
  pythonExecutionToText,
} from "../../core/session/llm-messages.ts";
import { buildLlmView } from "../../core/session/llm-view.ts";
import { assistant, chain, compaction, msg, plainTemplates, toolResult, user } from "./_builders.ts";

function bash(extra: Partial<BashExecutionMessage> = {}): BashExecutionMessage {
  return {
    role: "bashExecution",
    command: "npm test",
    output: "ok",
    exitCode: 0,
    cancelled: false,
    truncated: false,
    timestamp: 42,
    ...extra,
  };
}

function python(extra: Partial<PythonExecutionMessage> = {}): PythonExecutionMessage {
  return {
    role: "pythonExecution",
    code: "print(1)",
    output: "1",
    exitCode: 0,
    cancelled: false,
    truncated: false,
    timestamp: 43,
    ...extra,
  };
}

const IMAGE = { type: "image" as const, data: "AAAA", mimeType: "image/png" };

describe("bash and python executions", () => {
  it("B31: excluded bash runs are dropped; a failing one ends with the exit code", () => {
    expect(convertToLlm([bash({ excludeFromContext: true })], plainTemplates)).toEqual([]);
    const [out] = convertToLlm([bash({ exitCode: 2 })], plainTemplates);
    expect(out).toEqual({
      role: "user",
      content: [{ type: "text", text: "Ran `npm test`\n```\nok\n```\n\nCommand exited with code 2" }],
      timestamp: 42,
    });
  });

  it("bash text: no output, cancelled, exit code 0/undefined, pi's full-output notice", () => {
    expect(bashExecutionToText(bash({ output: "" }))).toBe("Ran `npm test`\n(no output)");
    expect(bashExecutionToText(bash({ cancelled: true, exitCode: 1 }))).toBe(
      "Ran `npm test`\n```\nok\n```\n\n(command cancelled)",
    );
    expect(bashExecutionToText(bash({ exitCode: undefined }))).toBe("Ran `npm test`\n```\nok\n```");
    expect(bashExecutionToText(bash({ truncated: true, fullOutputPath: "/tmp/x.log" }))).toBe(
      "Ran `npm test`\n```\nok\n```\n\n[Output truncated. Full output: /tmp/x.log]",
    );
  });

  it("python text: code block, output block, failure and cancellation", () => {
    expect(pythonExecutionToText(python())).toBe(
      "Ran Python:\n```python\nprint(1)\n```\nOutput:\n```\n1\n```",
    );
    expect(pythonExecutionToText(python({ output: "", exitCode: 3 }))).toBe(
      "Ran Python:\n```python\nprint(1)\n```\n(no output)\n\nExecution failed with code 3",
    );
    expect(pythonExecutionToText(python({ cancelled: true }))).toContain("\n\n(execution cancelled)");
    expect(convertToLlm([python({ excludeFromContext: true })], plainTemplates)).toEqual([]);
    expect(convertToLlm([python()], plainTemplates)[0]).toMatchObject({ role: "user", timestamp: 43 });
  });

  it("output notice from meta: truncation, limits, diagnostics", () => {
    expect(formatOutputNotice(undefined)).toBe("");
    expect(
      formatOutputNotice({
        truncation: {
          shownRange: { start: 1, end: 50 },
          totalLines: 200,
          truncatedBy: "lines",
          nextOffset: 51,
        },
      }),
    ).toBe("\n\n[Showing lines 1-50 of 200. Use offset=51 to continue]");
    expect(
      formatOutputNotice({
        truncation: {
          outputLines: 10,
          totalLines: 90,
          truncatedBy: "bytes",
          maxBytes: 51200,
          artifactId: "7",
        },
        limits: { matchLimit: { reached: 100, suggestion: 200 }, columnTruncated: { maxColumn: 500 } },
      }),
    ).toBe(
      "\n\n[Showing 10 of 90 lines (50.0KB limit). Full: artifact://7. 100 matches limit reached. Use limit=200 for more. Some lines truncated to 500 chars]",
    );
    expect(
      formatOutputNotice({ diagnostics: { summary: "1 error", messages: ["a.ts:1 bad", "b.ts:2 worse"] } }),
    ).toBe("\n\nLSP Diagnostics (1 error):\n  a.ts:1 bad\n  b.ts:2 worse");
    const withMeta = bashExecutionToText(
      bash({ meta: { limits: { resultLimit: { reached: 5, suggestion: 10 } } } }),
    );
    expect(withMeta.endsWith("\n\n[5 results limit reached. Use limit=10 for more]")).toBe(true);
  });
});

describe("other roles", () => {
  it("B32: a pruned tool result sends only its text", () => {
    const pruned = toolResult("", {
      content: [{ type: "text", text: "part one" }, IMAGE, { type: "text", text: " part two" }],
      prunedAt: 123,
    });
    const [out] = convertToLlm([pruned], plainTemplates);
    expect(out).toEqual({ ...pruned, content: [{ type: "text", text: "part one part two" }] });
    const onlyImage = toolResult("", { content: [IMAGE], prunedAt: 1 });
    expect(convertToLlm([onlyImage], plainTemplates)[0]?.content).toEqual([
      { type: "text", text: "[Output truncated]" },
    ]);
    const intact = toolResult("keep", { content: [{ type: "text", text: "keep" }, IMAGE] });
    expect(convertToLlm([intact], plainTemplates)[0]).toBe(intact);
  });

  it("user and assistant messages pass through unchanged", () => {
    const messages = [user("q"), assistant("a")];
    const out = convertToLlm(messages, plainTemplates);
    expect(out[0]).toBe(messages[0]);
    expect(out[1]).toBe(messages[1]);
  });

  it("custom messages with image arrays pass the array through", () => {
    const custom: AgentMessage = {
      role: "custom",
      customType: "x",
      content: [{ type: "text", text: "t" }, IMAGE],
      display: true,
      timestamp: 9,
    };
    expect(convertToLlm([custom], plainTemplates)).toEqual([
      { role: "user", content: [{ type: "text", text: "t" }, IMAGE], timestamp: 9 },
    ]);
  });

  it("file mentions become a system reminder with the files, then their images", () => {
    const mention: FileMentionMessage = {
      role: "fileMention",
      files: [
        { path: "a.ts", content: "const a = 1;" },
        { path: "empty.txt", content: "" },
        { path: "pic.png", content: "", image: IMAGE },
      ],
      timestamp: 5,
    };
    expect(convertToLlm([mention], plainTemplates)).toEqual([
      {
        role: "user",
        content: [
          {
            type: "text",
            text: '<system-reminder>\n<file path="a.ts">\nconst a = 1;\n</file>\n\n<file path="empty.txt">\n</file>\n\n<file path="pic.png">\n</file>\n</system-reminder>',
          },
          IMAGE,
        ],
        timestamp: 5,
      },
    ]);
  });

  it("summaries go through the templates; unknown roles are never sent; sources map back", () => {
    const messages = [
      { role: "compactionSummary", summary: "S1", tokensBefore: 1, timestamp: 1 },
      { role: "mystery", timestamp: 2 },
      { role: "branchSummary", summary: "S2", fromId: "x", timestamp: 3 },
      user("q"),
    ] as AgentMessage[];
    const { messages: out, sources } = convertToLlmWithSources(messages, plainTemplates);
    expect(sources).toEqual([0, 2, 3]);
    expect(out[0]).toEqual({
      role: "user",
      content: [{ type: "text", text: plainTemplates.compactionSummary("S1") }],
      timestamp: 1,
    });
    expect(out[1]).toEqual({
      role: "user",
      content: [{ type: "text", text: plainTemplates.branchSummary("S2") }],
      timestamp: 3,
    });
  });
});

describe("buildLlmView", () => {
  it("maps every provider message to its entry and estimate, skipping dropped ones", () => {
    const entries = chain(
      msg("u1", null, user("x".repeat(8))),
      msg("b", null, {
        role: "bashExecution",
        command: "ls",
        output: "",
        exitCode: 0,
        cancelled: false,
        truncated: false,
        excludeFromContext: true,
        timestamp: 1,
      }),
      compaction("C", null, "u1"),
      msg("a1", null, assistant("y".repeat(4))),
    );
    const view = buildLlmView(entries, undefined, plainTemplates);
    expect(view.messages.map((m) => m.role)).toEqual(["user", "user", "assistant"]);
    expect(view.messageEntryIds).toEqual(["C", "u1", "a1"]);
    expect(view.messageTokens).toEqual([Math.ceil("summary C".length / 4), 2, 1]);
    expect(view.estimatedTokens).toBe(view.messageTokens.reduce((a, b) => a + b, 0));
    expect(view.context.compaction?.id).toBe("C");
  });
});
