// The built-in offline summarizer (D16): deterministic structured summaries without a model —
// sections, files, open question, update merging, short and turn-prefix shapes, abort, and the
// whole compaction / branch-summary flows running offline.
import { describe, expect, it } from "vitest";
import { createOfflineSummarizer } from "../../../core/compaction/offline-summarizer.ts";
import { prepareCompaction } from "../../../core/compaction/prepare.ts";
import { compact, generateBranchSummary } from "../../../core/compaction/summarize.ts";
import { DEFAULT_COMPACTION_SETTINGS, type SummaryRequest } from "../../../core/compaction/types.ts";
import type { AssistantMessage, LlmMessage } from "../../../core/session/entries.ts";
import { assistant, chain, msg, toolResult, user } from "../_builders.ts";
import { abortable, prompts, templates } from "./_fake.ts";

function calls(text: string, list: [name: string, args: Record<string, unknown>][]): AssistantMessage {
  return assistant(text, {
    content: [
      { type: "text", text },
      ...list.map(([name, args], i) => ({ type: "toolCall" as const, id: `c${i}`, name, arguments: args })),
    ],
  });
}

const conversation: LlmMessage[] = [
  user("Fix the flaky parser test in src/parser.ts; it fails on CRLF input."),
  calls("Reading the parser first.", [
    ["read", { path: "src/parser.ts" }],
    ["read", { path: "README.md" }],
    ["bash", { command: "npm test -- parser" }],
  ]),
  toolResult("1 failed"),
  calls("The tokenizer splits on \\n only; fixing it.", [
    ["edit", { path: "src/parser.ts" }],
    ["write", { path: "test/crlf.test.ts" }],
  ]),
  toolResult("ok"),
  user("Also handle Windows paths."),
  assistant("Done. Should I update the changelog as well?"),
];

function request(purpose: SummaryRequest["purpose"], extra: Partial<SummaryRequest> = {}): SummaryRequest {
  return { purpose, systemPrompt: "", prompt: "", maxTokens: 13107, messages: conversation, ...extra };
}

const offline = createOfflineSummarizer();

describe("offline summarizer", () => {
  it("identifies itself; context window 0 means unknown", () => {
    expect(offline.kind).toBe("offline");
    expect(offline.label).toBe("Built-in offline summarizer");
    expect(offline.contextWindow).toBe(0);
  });

  it("is deterministic: the same request gives byte-identical text, across instances", async () => {
    const first = await offline.summarize(request("history"));
    const second = await createOfflineSummarizer().summarize(request("history"));
    expect(second.text).toBe(first.text);
    expect(first.stopReason).toBe("stop");
    for (const purpose of ["short", "turn-prefix", "branch", "update"] as const) {
      const a = await offline.summarize(request(purpose, { previousSummary: first.text }));
      const b = await offline.summarize(request(purpose, { previousSummary: first.text }));
      expect(b.text).toBe(a.text);
    }
  });

  it("structured summary: goal, progress, last steps, files, open question", async () => {
    const { text } = await offline.summarize(request("history"));
    const headings = text.split("\n").filter((line) => line.startsWith("## "));
    expect(headings).toEqual(["## Goal", "## Progress", "## Last steps", "## Files", "## Open question"]);
    expect(text).toContain(
      "## Goal\nFix the flaky parser test in src/parser.ts; it fails on CRLF input.\n- Also asked: Also handle Windows paths.",
    );
    expect(text).toContain("- Tool calls: read ×2, bash ×1, edit ×1, write ×1");
    expect(text).toContain(
      "- Called: read(src/parser.ts), read(README.md), bash(npm test -- parser), edit(src/parser.ts), write(test/crlf.test.ts)",
    );
    expect(text).toContain("- Done. Should I update the changelog as well?");
    expect(text).toContain(
      "## Files\n- Read: README.md\n- Edited: src/parser.ts\n- Written: test/crlf.test.ts",
    );
    expect(text).toContain(
      "## Open question\nThe assistant asked: Done. Should I update the changelog as well?",
    );
    expect(text).not.toContain("1 failed");
  });

  it("a trailing user message is the open question", async () => {
    const { text } = await offline.summarize(
      request("branch", { messages: [...conversation, user("Which branch should I merge into?")] }),
    );
    expect(text).toContain("## Open question\nWhich branch should I merge into?");
  });

  it("summaries inside the conversation (context templates) are merged, not taken as the goal", async () => {
    const wrapped = templates.compactionSummary("## Goal\nShip v2\n\n## Progress\n- [x] Wrote the plan");
    const { text } = await offline.summarize(
      request("branch", { messages: [user(wrapped), ...conversation] }),
    );
    expect(text.startsWith("## Goal\nShip v2\n")).toBe(true);
    expect(text).toContain("## Progress\n- [x] Wrote the plan\n- Tool calls:");
    expect(text).not.toContain("picking up");
  });

  it("a summary without sections (a model's prose, a hook's) is carried as progress, never dropped", async () => {
    // A branch whose only content is an earlier branch summary in prose: it used to give
    // "No conversation to summarize." — and that became the new branch summary.
    const prose = "The branch tried a streaming parser.\nIt was dropped: too slow on large files.";
    const { text } = await offline.summarize(request("branch", { messages: [user(templates.branchSummary(prose))] }));
    expect(text).toBe("## Progress\n- The branch tried a streaming parser. It was dropped: too slow on large files.");
    const update = await offline.summarize(request("update", { messages: [], previousSummary: prose }));
    expect(update.text).toBe(text);
  });

  it("update: merges the previous summary's goal, progress, files and tool tallies with the new messages", async () => {
    const previous = (await offline.summarize(request("history"))).text;
    const later: LlmMessage[] = [
      user("Now port it to the lexer."),
      calls("Ported.", [["edit", { path: "src/lexer.ts" }]]),
    ];
    const { text } = await offline.summarize(
      request("update", { messages: later, previousSummary: previous }),
    );
    expect(text).toContain("## Goal\nFix the flaky parser test in src/parser.ts; it fails on CRLF input.\n");
    expect(text).toContain("- Also asked: Now port it to the lexer.");
    expect(text).toContain("- Reading the parser first.");
    expect(text).toContain("- Tool calls: read ×2, bash ×1, edit ×2, write ×1");
    expect(text).toContain("## Last steps\n- Ported.\n- Called: edit(src/lexer.ts)");
    expect(text).toContain("- Edited: src/lexer.ts, src/parser.ts");
    expect(text).toContain("- Read: README.md");
    expect(text.match(/## Goal/g)).toHaveLength(1);
    // The old open question was followed by more conversation: it is not carried.
    expect(text).not.toContain("## Open question");
  });

  it("short: one or two plain first-person sentences", async () => {
    const { text } = await offline.summarize(request("short"));
    expect(text).toBe(
      "I worked on: Fix the flaky parser test in src/parser.ts; it fails on CRLF input. I changed src/parser.ts, test/crlf.test.ts.",
    );
    expect(text).not.toContain("\n");
    const idle = await offline.summarize(request("short", { messages: [] }));
    expect(idle.text).toBe("Nothing has been done yet.");
  });

  it("short prefers the history summary's goal over the latest request", async () => {
    const history = "## Goal\nShip v2\n\n## Files\n- Written: docs/v2.md";
    const { text } = await offline.summarize(
      request("short", { messages: [user("and the footer?")], previousSummary: history }),
    );
    expect(text).toBe("I worked on: Ship v2. I changed docs/v2.md.");
  });

  it("turn prefix: original request, early progress, context for the kept part", async () => {
    const { text } = await offline.summarize(request("turn-prefix", { messages: conversation.slice(0, 3) }));
    expect(text).toBe(
      "## Original Request\nFix the flaky parser test in src/parser.ts; it fails on CRLF input.\n\n" +
        "## Early Progress\n- Reading the parser first.\n- Called: read(src/parser.ts), read(README.md), bash(npm test -- parser)\n\n" +
        "## Context for Suffix\n- Read: README.md, src/parser.ts",
    );
  });

  it("caps lengths: long requests are clipped; the output respects maxTokens", async () => {
    const long: LlmMessage[] = [user(`Goal ${"word ".repeat(2000)}`), assistant("x".repeat(5000))];
    const { text } = await offline.summarize(request("history", { messages: long }));
    expect(text.length).toBeLessThan(1000);
    expect(text.split("\n")[1]?.length).toBeLessThanOrEqual(400);
    const tiny = await offline.summarize(request("history", { messages: long, maxTokens: 10 }));
    expect(tiny.text.length).toBe(40);
    expect(tiny.stopReason).toBe("length");
  });

  it("honours an aborted signal", async () => {
    const { signal, abort } = abortable();
    abort();
    expect(await offline.summarize(request("history", { signal }))).toEqual({
      text: "",
      stopReason: "aborted",
    });
  });

  it("reports its text through onText", async () => {
    const seen: string[] = [];
    const { text } = await offline.summarize(request("short", { onText: (t) => seen.push(t) }));
    expect(seen).toEqual([text]);
  });

  it("runs a whole compaction offline (D16), deterministically", async () => {
    const path = chain(
      ...conversation.map((m, i) => msg(`e${i}`, null, m)),
      msg("e9", null, user("x".repeat(90000))),
    );
    const preparation = prepareCompaction(path, DEFAULT_COMPACTION_SETTINGS);
    if (preparation === undefined) throw new Error("expected a preparation");
    const run = () => compact(preparation, { summarizer: createOfflineSummarizer(), prompts, templates });
    const result = await run();
    expect(result.summary.startsWith("## Goal\nFix the flaky parser test")).toBe(true);
    expect(
      result.summary.endsWith("<modified-files>\nsrc/parser.ts\ntest/crlf.test.ts\n</modified-files>"),
    ).toBe(true);
    expect(result.shortSummary).toBe(
      "I worked on: Fix the flaky parser test in src/parser.ts; it fails on CRLF input. I changed src/parser.ts, test/crlf.test.ts.",
    );
    expect(await run()).toEqual(result);
  });

  it("runs a branch summary offline with the 128000-token fallback window", async () => {
    const path = chain(...conversation.map((m, i) => msg(`e${i}`, null, m)));
    const result = await generateBranchSummary(path, { summarizer: offline, prompts, templates });
    expect(result.summary?.startsWith(`${prompts.branchPreamble}\n\n## Goal\n`)).toBe(true);
    expect(result.readFiles).toEqual(["README.md"]);
    expect(result.modifiedFiles).toEqual(["src/parser.ts", "test/crlf.test.ts"]);
  });
});
