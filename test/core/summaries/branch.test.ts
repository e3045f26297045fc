// generateBranchSummary (SPEC §8.1 with D13): preamble + blank line, "Additional focus" or a
// replaced prompt, D8 file tags, budget from the context window, behaviour 58's input, failures.
import { describe, expect, it } from "vitest";
import { generateBranchSummary } from "../../../core/compaction/summarize.ts";
import type { SessionEntry } from "../../../core/session/entries.ts";
import { assistant, chain, compaction, entry, msg, toolResult, user, withCalls } from "../_builders.ts";
import { abortable, prompts, recordingSummarizer, templates } from "./_fake.ts";

const t = (n: number, label: string) => label.padEnd(4 * n, ".");

const branch: SessionEntry[] = chain(
  msg("u1", null, user("Try the fast path")),
  msg("a1", null, withCalls("Reading the cache", [["read", "/a.ts"]])),
  msg("t1", null, toolResult("cache contents")),
  msg("a2", null, withCalls("Rewrote it", [["edit", "/b.ts"]])),
);
const base = { prompts, templates };

describe("generateBranchSummary", () => {
  it("D13: preamble, blank line, model text, D8 file tags; lists returned", async () => {
    const summarizer = recordingSummarizer(() => "## Goal\nFast path");
    const result = await generateBranchSummary(branch, { ...base, summarizer });
    expect(result).toEqual({
      summary: `${prompts.branchPreamble}\n\n## Goal\nFast path\n\n<read-files>\n/a.ts\n</read-files>\n\n<modified-files>\n/b.ts\n</modified-files>`,
      readFiles: ["/a.ts"],
      modifiedFiles: ["/b.ts"],
    });
    expect(prompts.branchPreamble.endsWith(":")).toBe(true);
  });

  it("request: branch prompt after the conversation, system prompt, maxTokens 2048, no reasoning option", async () => {
    const summarizer = recordingSummarizer();
    await generateBranchSummary(branch, { ...base, summarizer });
    const [request] = summarizer.requests;
    expect(request?.purpose).toBe("branch");
    expect(request?.systemPrompt).toBe(prompts.system);
    expect(request?.maxTokens).toBe(2048);
    expect(request?.reasoning).toBeUndefined();
    expect(request?.prompt.startsWith("<conversation>\n[User]: Try the fast path\n\n")).toBe(true);
    expect(request?.prompt.endsWith(`\n</conversation>\n\n${prompts.branchSummary}`)).toBe(true);
    expect(request?.prompt).not.toContain("[Tool result]");
  });

  it('D13: custom instructions are appended as "Additional focus"', async () => {
    const summarizer = recordingSummarizer();
    await generateBranchSummary(branch, { ...base, summarizer, customInstructions: "the cache" });
    expect(
      summarizer.requests[0]?.prompt.endsWith(`${prompts.branchSummary}\n\nAdditional focus: the cache`),
    ).toBe(true);
    expect(summarizer.requests[0]?.customInstructions).toBe("the cache");
  });

  it("D13: with replacePrompt the custom instructions replace the branch prompt", async () => {
    const summarizer = recordingSummarizer();
    await generateBranchSummary(branch, {
      ...base,
      summarizer,
      customInstructions: "Only list files.",
      replacePrompt: true,
    });
    const prompt = summarizer.requests[0]?.prompt ?? "";
    expect(prompt.endsWith("\n</conversation>\n\nOnly list files.")).toBe(true);
    expect(prompt).not.toContain(prompts.branchSummary);
    // Without instructions, replacePrompt changes nothing.
    const plain = recordingSummarizer();
    await generateBranchSummary(branch, {
      ...base,
      summarizer: plain,
      replacePrompt: true,
      customInstructions: "  ",
    });
    expect(plain.requests[0]?.prompt.endsWith(prompts.branchSummary)).toBe(true);
  });

  it("behaviour 58: an abandoned path U1, A1, C(S), U2, T, A2 → the summary in its template, then U2/A2, no tool result", async () => {
    const path = chain(
      msg("u1", null, user("U1 text")),
      msg("a1", null, assistant("A1 text")),
      compaction("c", null, "u1", "S"),
      msg("u2", null, user("U2 text")),
      msg("t", null, toolResult("TOOL OUTPUT")),
      msg("a2", null, assistant("A2 text")),
    );
    const summarizer = recordingSummarizer();
    await generateBranchSummary(path, { ...base, summarizer });
    const prompt = summarizer.requests[0]?.prompt ?? "";
    const summaryAt = prompt.indexOf(`[User]: ${templates.compactionSummary("S")}`);
    expect(summaryAt).toBeGreaterThan(-1);
    expect(prompt.indexOf("[User]: U2 text")).toBeGreaterThan(summaryAt);
    expect(prompt.indexOf("[Assistant]: A2 text")).toBeGreaterThan(prompt.indexOf("[User]: U2 text"));
    expect(prompt).not.toContain("TOOL OUTPUT");
    expect(prompt).not.toContain("[Tool result]");
  });

  it("a branch summary inside the path contributes its recorded files even outside the budget", async () => {
    const path = chain(
      {
        ...entry("bs", null, "branch_summary", { fromId: "x", summary: t(2000, "old") }),
        details: { readFiles: ["/r.ts"], modifiedFiles: ["/m.ts"] },
      },
      msg("u", null, user(t(1000, "U"))),
      msg("a", null, assistant(t(1000, "A"))),
    );
    // Window 18384 − reserve 16384 = 2000 tokens: only U and A fit.
    const summarizer = recordingSummarizer(() => "text", { contextWindow: 18384 });
    const result = await generateBranchSummary(path, { ...base, summarizer });
    expect(summarizer.requests[0]?.prompt).not.toContain("old...");
    expect(result.readFiles).toEqual(["/r.ts"]);
    expect(result.modifiedFiles).toEqual(["/m.ts"]);
    expect(result.summary?.endsWith("<modified-files>\n/m.ts\n</modified-files>")).toBe(true);
  });

  it("budget = (contextWindow || 128000) − reserveTokens", async () => {
    const path = chain(msg("u", null, user(t(5000, "OLD"))), msg("u2", null, user(t(100, "NEW"))));
    const small = recordingSummarizer(() => "x", { contextWindow: 16384 + 1000 });
    await generateBranchSummary(path, { ...base, summarizer: small });
    expect(small.requests[0]?.prompt).not.toContain("OLD");
    const unknown = recordingSummarizer(() => "x", { contextWindow: 0 });
    await generateBranchSummary(path, { ...base, summarizer: unknown, reserveTokens: 128000 - 1000 });
    expect(unknown.requests[0]?.prompt).not.toContain("OLD");
    const roomy = recordingSummarizer(() => "x", { contextWindow: 0 });
    await generateBranchSummary(path, { ...base, summarizer: roomy });
    expect(roomy.requests[0]?.prompt).toContain("OLD");
  });

  it("nothing to summarize → `No content to summarize` without a model call", async () => {
    const summarizer = recordingSummarizer();
    const path = chain(
      entry("m", null, "model_change", { model: "a/b" }),
      msg("t", null, toolResult("only a tool result")),
    );
    expect(await generateBranchSummary(path, { ...base, summarizer })).toEqual({
      summary: "No content to summarize",
      readFiles: [],
      modifiedFiles: [],
    });
    expect(summarizer.requests).toHaveLength(0);
  });

  it("failures are returned: aborted, error (with fallback text), empty text", async () => {
    const before = abortable();
    before.abort();
    const idle = recordingSummarizer();
    expect(
      await generateBranchSummary(branch, { ...base, summarizer: idle, signal: before.signal }),
    ).toMatchObject({
      aborted: true,
    });
    expect(idle.requests).toHaveLength(0);

    const aborted = recordingSummarizer(() => ({ text: "", stopReason: "aborted" }));
    const abortedResult = await generateBranchSummary(branch, { ...base, summarizer: aborted });
    expect(abortedResult.aborted).toBe(true);
    expect(abortedResult.summary).toBeUndefined();

    const failing = recordingSummarizer(() => ({ text: "", stopReason: "error", errorMessage: "quota" }));
    expect(await generateBranchSummary(branch, { ...base, summarizer: failing })).toMatchObject({
      error: "quota",
    });
    const silent = recordingSummarizer(() => ({ text: "", stopReason: "error" }));
    expect(await generateBranchSummary(branch, { ...base, summarizer: silent })).toMatchObject({
      error: "Summarization failed",
    });
    const throwing = recordingSummarizer(() => {
      throw new Error("socket hang up");
    });
    expect(await generateBranchSummary(branch, { ...base, summarizer: throwing })).toMatchObject({
      error: "socket hang up",
    });

    const empty = recordingSummarizer(() => "  ");
    expect(await generateBranchSummary(branch, { ...base, summarizer: empty })).toEqual({
      summary: "No summary generated",
      readFiles: ["/a.ts"],
      modifiedFiles: ["/b.ts"],
    });
  });
});
