// compact (SPEC §6.4 with D5–D8): behaviours 41, 44, 45, E3/E5/E9 summary consequences, the
// split-turn merge, file tags, details, budgets, error texts and cancellation.
import { describe, expect, it } from "vitest";
import { prepareCompaction } from "../../../core/compaction/prepare.ts";
import { compact, NO_PRIOR_HISTORY, stripTrailingFileTags } from "../../../core/compaction/summarize.ts";
import {
  type CompactionPreparation,
  type CompactionSettings,
  DEFAULT_COMPACTION_SETTINGS,
  type SummaryRequest,
} from "../../../core/compaction/types.ts";
import type { SessionEntry } from "../../../core/session/entries.ts";
import { assistant, chain, compaction, entry, msg, toolResult, user, withCalls } from "../_builders.ts";
import { abortable, prompts, recordingSummarizer, templates } from "./_fake.ts";

/** Text of `n` estimated tokens starting with `label`. */
const t = (n: number, label: string) => label.padEnd(4 * n, ".");
const SEP = "\n\n---\n\n**Turn Context (split turn):**\n\n";

function plan(path: SessionEntry[], keepRecentTokens: number, extra: Partial<CompactionSettings> = {}) {
  const preparation = prepareCompaction(path, { ...DEFAULT_COMPACTION_SETTINGS, keepRecentTokens, ...extra });
  if (preparation === undefined) throw new Error("expected a preparation");
  return preparation;
}

const purposes = (requests: SummaryRequest[]) => requests.map((r) => r.purpose).sort();

/** E2: history U,A (A edits b.ts), turn prefix U,A,T (A reads a.ts), kept A. */
const splitTurnPath = chain(
  msg("u0", null, user(t(100, "U0"))),
  msg("a1", null, withCalls(t(100, "A1"), [["edit", "b.ts"]])),
  msg("u2", null, user(t(100, "U2"))),
  msg("a3", null, withCalls(t(100, "A3"), [["read", "a.ts"]])),
  msg("t4", null, toolResult(t(5000, "T4"))),
  msg("a5", null, assistant(t(100, "A5"))),
);

describe("compact", () => {
  it("behaviour 41 / E9: a single user message → `No prior history.` plus one short-summary call", async () => {
    const summarizer = recordingSummarizer();
    const result = await compact(plan([msg("u0", null, user("hello"))], 20000), {
      summarizer,
      prompts,
      templates,
    });
    expect(result).toEqual({
      summary: NO_PRIOR_HISTORY,
      shortSummary: "short summary",
      firstKeptEntryId: "u0",
      tokensBefore: result.tokensBefore,
      details: { readFiles: [], modifiedFiles: [] },
    });
    expect(result.summary).toBe("No prior history.");
    expect(summarizer.requests).toHaveLength(1);
    expect(summarizer.requests[0]?.purpose).toBe("short");
    expect(summarizer.requests[0]?.maxTokens).toBe(512);
    expect(summarizer.requests[0]?.prompt).toContain(
      "<previous-summary>\nNo prior history.\n</previous-summary>",
    );
  });

  it("behaviour 44: split turn → `<history>\\n\\n---\\n\\n**Turn Context (split turn):**\\n\\n<prefix>` + file tags", async () => {
    const summarizer = recordingSummarizer();
    const preparation = plan(splitTurnPath, 2000);
    expect(preparation.isSplitTurn).toBe(true);
    const result = await compact(preparation, { summarizer, prompts, templates });
    expect(result.summary).toBe(
      `history summary${SEP}turn-prefix summary` +
        "\n\n<read-files>\na.ts\n</read-files>\n\n<modified-files>\nb.ts\n</modified-files>",
    );
    expect(result.details).toEqual({ readFiles: ["a.ts"], modifiedFiles: ["b.ts"] });
    expect(result.firstKeptEntryId).toBe("a5");
    expect(purposes(summarizer.requests)).toEqual(["history", "short", "turn-prefix"]);
    // The short summary sees the merged summary (without tags) and only the kept messages.
    const short = summarizer.find("short");
    expect(short?.previousSummary).toBe(`history summary${SEP}turn-prefix summary`);
    expect(short?.prompt.startsWith(`<conversation>\n[Assistant]: ${t(100, "A5")}\n</conversation>`)).toBe(
      true,
    );
  });

  it("default budgets: history 13107, turn prefix 8192, short 512", async () => {
    const summarizer = recordingSummarizer();
    await compact(plan(splitTurnPath, 2000), { summarizer, prompts, templates });
    expect(summarizer.find("history")?.maxTokens).toBe(13107);
    expect(summarizer.find("turn-prefix")?.maxTokens).toBe(8192);
    expect(summarizer.find("short")?.maxTokens).toBe(512);
    const small = recordingSummarizer();
    await compact(plan(splitTurnPath, 2000, { reserveTokens: 1000 }), {
      summarizer: small,
      prompts,
      templates,
    });
    expect(small.requests.map((r) => [r.purpose, r.maxTokens]).sort()).toEqual([
      ["history", 800],
      ["short", 200],
      ["turn-prefix", 500],
    ]);
  });

  it("the history and turn-prefix calls run in parallel", { timeout: 2000 }, async () => {
    let release: () => void = () => {};
    const bothStarted = new Promise<void>((resolve) => {
      release = resolve;
    });
    const summarizer = recordingSummarizer(async (r) => {
      if (r.purpose === "short") return { text: "s", stopReason: "stop" };
      if (summarizer.requests.length === 2) release();
      await bothStarted;
      return { text: r.purpose, stopReason: "stop" };
    });
    const result = await compact(plan(splitTurnPath, 2000), { summarizer, prompts, templates });
    expect(result.summary.startsWith(`history${SEP}turn-prefix`)).toBe(true);
  });

  it("options: custom instructions, prompt override and extra context reach the right calls", async () => {
    const summarizer = recordingSummarizer((r) => {
      r.onText?.(`${r.purpose}…`);
      return `${r.purpose} summary`;
    });
    const streamed: [string, string][] = [];
    await compact(plan(splitTurnPath, 2000), {
      summarizer,
      prompts,
      templates,
      customInstructions: "keep the parser notes",
      promptOverride: "HOOK",
      extraContext: ["from a hook"],
      onText: (text, purpose) => streamed.push([purpose, text]),
    });
    const history = summarizer.find("history")?.prompt ?? "";
    expect(
      history.endsWith(
        "<additional-context>\n- from a hook\n</additional-context>\n\nHOOK\n\nAdditional focus: keep the parser notes",
      ),
    ).toBe(true);
    const prefix = summarizer.find("turn-prefix")?.prompt ?? "";
    expect(prefix).not.toContain("Additional focus");
    expect(prefix).not.toContain("additional-context");
    const short = summarizer.find("short")?.prompt ?? "";
    expect(short).toContain("<additional-context>\n- from a hook\n</additional-context>\n\n");
    expect(short).not.toContain("Additional focus");
    expect(short.endsWith(prompts.shortSummary)).toBe(true);
    // Streamed text is labelled with the call it belongs to.
    expect(streamed.sort()).toEqual([
      ["history", "history…"],
      ["short", "short…"],
      ["turn-prefix", "turn-prefix…"],
    ]);
  });

  it("behaviour 45: with a remote backend the main and short calls go there; the turn prefix never does", async () => {
    const model = recordingSummarizer();
    const answers = ["S", "second S"];
    const remote = recordingSummarizer((_r, call) => answers[call] ?? "?", { kind: "remote" });
    const result = await compact(plan(splitTurnPath, 2000), {
      summarizer: model,
      remote,
      prompts,
      templates,
    });
    expect(remote.requests.map((r) => r.purpose)).toEqual(["history", "short"]);
    expect(model.requests.map((r) => r.purpose)).toEqual(["turn-prefix"]);
    expect(result.shortSummary).toBe("second S");
    expect(result.summary.startsWith(`S${SEP}turn-prefix summary`)).toBe(true);
  });

  it("E3 under D6 (anchor: a false split turn): metadata in front of the kept user message → plain history summary", async () => {
    const path = chain(
      msg("u0", null, user(t(1000, "U0"))),
      msg("a1", null, assistant(t(1000, "A1"))),
      entry("m2", null, "model_change", { model: "openai/gpt" }),
      entry("l3", null, "thinking_level_change", { thinkingLevel: "high" }),
      msg("u4", null, user(t(1000, "U4"))),
      msg("a5", null, assistant(t(1000, "A5"))),
    );
    const summarizer = recordingSummarizer();
    const result = await compact(plan(path, 1500), { summarizer, prompts, templates });
    expect(result.summary).toBe("history summary");
    expect(result.summary).not.toContain("Turn Context");
    expect(result.firstKeptEntryId).toBe("m2");
    expect(purposes(summarizer.requests)).toEqual(["history", "short"]);
  });

  const e5 = chain(
    msg("u0", null, user(t(1000, "U0"))),
    msg("a1", null, assistant(t(1000, "A1"))),
    compaction("c2", null, "u0", "S1"),
    msg("u3", null, user(t(1000, "U3"))),
    msg("a4", null, assistant(t(1000, "A4"))),
    msg("u5", null, user(t(1000, "U5"))),
    msg("a6", null, assistant(t(1000, "A6"))),
  );

  it("E5 under D5 (anchor drops U0, A1): the update call summarizes the previous kept region and the new messages", async () => {
    const summarizer = recordingSummarizer();
    const result = await compact(plan(e5, 1500), { summarizer, prompts, templates });
    const update = summarizer.find("update");
    expect(update?.previousSummary).toBe("S1");
    const prompt = update?.prompt ?? "";
    expect(prompt).toContain("<previous-summary>\nS1\n</previous-summary>");
    for (const label of ["U0", "A1", "U3", "A4"]) expect(prompt).toContain(label);
    expect(prompt).not.toContain("U5");
    expect(prompt.endsWith(prompts.updateSummary)).toBe(true);
    expect(result.summary).toBe("update summary");
    expect(result.firstKeptEntryId).toBe("u5");
  });

  it("E5 with keep 100000 under D5: nothing to summarize → the previous summary verbatim, no main call", async () => {
    const summarizer = recordingSummarizer();
    const result = await compact(plan(e5, 100000), { summarizer, prompts, templates });
    expect(result.summary).toBe("S1");
    expect(result.firstKeptEntryId).toBe("u0");
    expect(purposes(summarizer.requests)).toEqual(["short"]);
    expect(summarizer.requests[0]?.previousSummary).toBe("S1");
  });

  it("E9 [U, A, C, label] under D5: the previous summary is reused verbatim", async () => {
    const path = chain(
      msg("u0", null, user("hi")),
      msg("a1", null, assistant("hello")),
      compaction("c2", null, "u0", "S1"),
      entry("l3", null, "label", { targetId: "u0", label: "start" }),
    );
    const summarizer = recordingSummarizer();
    const result = await compact(plan(path, 20000), { summarizer, prompts, templates });
    expect(result.summary).toBe("S1");
    expect(purposes(summarizer.requests)).toEqual(["short"]);
  });

  it("D7 (anchor: `No prior history.`): a split turn with nothing else to summarize carries the previous summary", async () => {
    const previous = "S1\n\n<read-files>\nold.ts\n</read-files>";
    const path = chain(
      msg("u0", null, user(t(100, "U0"))),
      msg("a1", null, withCalls(t(100, "A1"), [["read", "a.ts"]])),
      msg("t2", null, toolResult(t(5000, "T2"))),
      { ...compaction("c3", null, "u0", previous), details: { readFiles: ["old.ts"], modifiedFiles: [] } },
      msg("a4", null, assistant(t(100, "A4"))),
    );
    const preparation = plan(path, 2000);
    expect(preparation.isSplitTurn).toBe(true);
    expect(preparation.messagesToSummarize).toHaveLength(0);
    const summarizer = recordingSummarizer();
    const result = await compact(preparation, { summarizer, prompts, templates });
    expect(result.summary).toBe(`S1${SEP}turn-prefix summary\n\n<read-files>\na.ts\nold.ts\n</read-files>`);
    expect(purposes(summarizer.requests)).toEqual(["short", "turn-prefix"]);
  });

  it("first kept entry without an id → `First kept entry has no ID - session may need migration`", async () => {
    const summarizer = recordingSummarizer();
    const preparation: CompactionPreparation = { ...plan(splitTurnPath, 2000), firstKeptEntryId: "" };
    await expect(compact(preparation, { summarizer, prompts, templates })).rejects.toThrow(
      new Error("First kept entry has no ID - session may need migration"),
    );
    expect(summarizer.requests).toHaveLength(0);
  });

  it("error texts of each call propagate", async () => {
    const failWith = (purpose: string) =>
      recordingSummarizer((r) =>
        r.purpose === purpose ? { text: "", stopReason: "error", errorMessage: "boom" } : "ok",
      );
    const preparation = plan(splitTurnPath, 2000);
    const opts = { prompts, templates };
    await expect(compact(preparation, { ...opts, summarizer: failWith("history") })).rejects.toThrow(
      "Summarization failed: boom",
    );
    await expect(compact(preparation, { ...opts, summarizer: failWith("turn-prefix") })).rejects.toThrow(
      "Turn prefix summarization failed: boom",
    );
    await expect(compact(preparation, { ...opts, summarizer: failWith("short") })).rejects.toThrow(
      "Short summary failed: boom",
    );
  });

  it("abort: an aborted signal throws AbortError; an abort during the main call stops before the short call", async () => {
    const before = abortable();
    before.abort();
    const idle = recordingSummarizer();
    const error = await compact(plan(splitTurnPath, 2000), {
      summarizer: idle,
      prompts,
      templates,
      signal: before.signal,
    }).catch((e: unknown) => e);
    expect((error as Error).name).toBe("AbortError");
    expect(idle.requests).toHaveLength(0);

    const during = abortable();
    const busy = recordingSummarizer((r) => {
      if (r.purpose === "history") during.abort();
      return "text";
    });
    const late = await compact(plan(splitTurnPath, 2000), {
      summarizer: busy,
      prompts,
      templates,
      signal: during.signal,
    }).catch((e: unknown) => e);
    expect((late as Error).name).toBe("AbortError");
    expect(busy.find("short")).toBeUndefined();
  });
});

describe("D8: file tags of compaction summaries", () => {
  it("exact tag text for read a.ts, b.ts and modified c.ts", async () => {
    const path = chain(
      msg("u0", null, user(t(1000, "U0"))),
      msg(
        "a1",
        null,
        withCalls(t(1000, "A1"), [
          ["read", "b.ts"],
          ["read", "a.ts"],
          ["write", "c.ts"],
        ]),
      ),
      msg("u2", null, user(t(1000, "U2"))),
      msg("a3", null, assistant(t(1000, "A3"))),
    );
    const result = await compact(plan(path, 1500), {
      summarizer: recordingSummarizer(() => "SUM"),
      prompts,
      templates,
    });
    expect(result.summary).toBe(
      "SUM\n\n<read-files>\na.ts\nb.ts\n</read-files>\n\n<modified-files>\nc.ts\n</modified-files>",
    );
    expect(result.details).toEqual({ readFiles: ["a.ts", "b.ts"], modifiedFiles: ["c.ts"] });
  });

  const reusePath = (summary: string, details?: unknown, fromExtension?: boolean) =>
    chain(
      msg("u0", null, user("hi")),
      msg("a1", null, assistant("hello")),
      { ...compaction("c2", null, "u0", summary), details, fromExtension },
      entry("l3", null, "label", { targetId: "u0", label: "x" }),
    );

  it("a reused previous summary keeps exactly one tag block (documented or anchor-glued tags)", async () => {
    const details = { readFiles: ["r.ts"], modifiedFiles: ["m.ts"] };
    const tags = "\n\n<read-files>\nr.ts\n</read-files>\n\n<modified-files>\nm.ts\n</modified-files>";
    for (const previous of [
      `S1${tags}`,
      "S1<read-files>\nr.ts\n</read-files><modified-files>\nm.ts\n</modified-files>",
    ]) {
      const summarizer = recordingSummarizer();
      const result = await compact(plan(reusePath(previous, details), 20000), {
        summarizer,
        prompts,
        templates,
      });
      expect(result.summary).toBe(`S1${tags}`);
      expect(summarizer.requests[0]?.previousSummary).toBe("S1");
    }
  });

  it("an update call sees the previous summary without its tags; the result gets the cumulative ones", async () => {
    const path = chain(
      msg("u0", null, user(t(1000, "U0"))),
      {
        ...compaction("c1", null, "u0", "S1\n\n<read-files>\nold.ts\n</read-files>"),
        details: { readFiles: ["old.ts"] },
      },
      msg("a2", null, withCalls(t(1000, "A2"), [["edit", "new.ts"]])),
      msg("u3", null, user(t(1000, "U3"))),
      msg("a4", null, assistant(t(1000, "A4"))),
    );
    const summarizer = recordingSummarizer(() => "S2");
    const result = await compact(plan(path, 1500), { summarizer, prompts, templates });
    expect(summarizer.find("update")?.prompt).toContain("<previous-summary>\nS1\n</previous-summary>");
    expect(result.summary).toBe(
      "S2\n\n<read-files>\nold.ts\n</read-files>\n\n<modified-files>\nnew.ts\n</modified-files>",
    );
  });

  it("with no tracked files (previous from an extension) the previous summary stays verbatim", async () => {
    const previous = "S1\n\n<read-files>\nx.ts\n</read-files>";
    const result = await compact(plan(reusePath(previous, { readFiles: ["x.ts"] }, true), 20000), {
      summarizer: recordingSummarizer(),
      prompts,
      templates,
    });
    expect(result.summary).toBe(previous);
    expect(result.details).toEqual({ readFiles: [], modifiedFiles: [] });
  });

  it("stripTrailingFileTags only removes tags at the very end", () => {
    expect(stripTrailingFileTags("a <read-files>\nx\n</read-files> b")).toBe(
      "a <read-files>\nx\n</read-files> b",
    );
    expect(stripTrailingFileTags("a\n\n<modified-files>\nm\n</modified-files>\n")).toBe("a");
    expect(stripTrailingFileTags("  keep  ")).toBe("  keep  ");
  });
});
