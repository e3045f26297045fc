/**
 * Compaction planning benchmark: prepareCompaction and planPruning on a 100,000-entry path (the
 * seeded generator's main path, with the compactions an agent makes), against one estimateTokens
 * pass over the path measured in the same run. Target: prepareCompaction median < 50 ms. Also
 * shown, without a target: the same path stripped of compactions, so the window is the whole
 * path (prepareCompaction must estimate all of it for D10, so one estimate pass is its floor).
 * Run: node bench/compaction.bench.ts
 */
import { fileURLToPath } from "node:url";
import { prepareCompaction } from "../core/compaction/prepare.ts";
import { planPruning } from "../core/compaction/pruning.ts";
import { estimateTokens } from "../core/compaction/tokens.ts";
import { DEFAULT_COMPACTION_SETTINGS } from "../core/compaction/types.ts";
import type { AgentMessage, SessionEntry } from "../core/session/entries.ts";
import { parseSessionText } from "../core/session/jsonl.ts";
import { entryTokens } from "../main/library/entry-rows.ts";
import { buildTreeIndex } from "../core/session/tree.ts";
import { generateSession } from "./generate-session.ts";

const PATH_LENGTH = 100_000;
const RUNS = 9;
const TARGET_MS = 50;

/** The generator's main path, grown until it holds PATH_LENGTH entries, cut to its newest PATH_LENGTH. */
function mainPath(): SessionEntry[] {
  // Side branches take ~2.5 % of the generated entries off the main path.
  let count = Math.ceil(PATH_LENGTH * 1.03);
  for (;;) {
    const generated = generateSession(count);
    const entries = parseSessionText(generated.text).entries.map((line) => line.entry);
    const path = buildTreeIndex(entries).pathTo(generated.deepestLeafId);
    if (path.length >= PATH_LENGTH) return path.slice(path.length - PATH_LENGTH);
    count += PATH_LENGTH - path.length + 500;
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

function time(run: () => unknown): { median: number; min: number } {
  run(); // warm-up
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    run();
    samples.push(performance.now() - started);
  }
  return { median: median(samples), min: Math.min(...samples) };
}

function estimatePass(path: readonly SessionEntry[]): number {
  let total = 0;
  for (const entry of path) {
    if (entry.type === "message") total += estimateTokens(entry.message as AgentMessage);
  }
  return total;
}

const fmt = (ms: number): string => `${ms.toFixed(2)} ms`;

export interface CompactionBenchResult {
  /** prepareCompaction met the target on the generated path. */
  ok: boolean;
  prepareMs: number;
  worstCasePrepareMs: number;
}

export function runCompactionBench(): CompactionBenchResult {
  const started = performance.now();
  const withCompactions = mainPath();
  const withoutCompactions = withCompactions.filter((entry) => entry.type !== "compaction");
  console.log(
    `path: ${withCompactions.length} entries (${withCompactions.length - withoutCompactions.length} compactions), ` +
      `generated and parsed in ${Math.round(performance.now() - started)} ms; ${RUNS} timed runs each, median (min)`,
  );
  const medians: number[] = [];
  for (const [label, path, targeted] of [
    ["with compactions (D5 window from the last one's kept entry)", withCompactions, true],
    ["without compactions (window = whole path; worst case, no target)", withoutCompactions, false],
  ] as const) {
    const baseline = time(() => estimatePass(path));
    // As in the app: the library stores each entry's estimate at import (not timed here).
    const stored = new Map(path.map((entry) => [entry, entryTokens(entry)]));
    const withStored = { tokensOf: (entry: SessionEntry) => stored.get(entry) };
    const prepare = time(() => prepareCompaction(path, DEFAULT_COMPACTION_SETTINGS, withStored));
    const prepareCold = time(() => prepareCompaction(path, DEFAULT_COMPACTION_SETTINGS));
    const pruning = time(() => planPruning(path));
    const plan = prepareCompaction(path, DEFAULT_COMPACTION_SETTINGS);
    const ratio = (ms: number): string => `${(ms / baseline.median).toFixed(2)}× baseline`;
    const verdict = targeted
      ? `  target < ${TARGET_MS} ms: ${prepare.median < TARGET_MS ? "ok" : "MISSED"}`
      : "";
    console.log(`\n${label}: ${path.length} entries`);
    console.log(
      `  baseline, one estimateTokens pass over the path: ${fmt(baseline.median)} (${fmt(baseline.min)})`,
    );
    console.log(
      `  prepareCompaction: ${fmt(prepare.median)} (${fmt(prepare.min)})  ratio ${ratio(prepare.median)}${verdict}`,
    );
    console.log(
      `  prepareCompaction estimating every message itself: ${fmt(prepareCold.median)} (${fmt(prepareCold.min)})  ratio ${ratio(prepareCold.median)}`,
    );
    console.log(
      `  planPruning:       ${fmt(pruning.median)} (${fmt(pruning.min)})  ratio ${ratio(pruning.median)}`,
    );
    console.log(
      `  plan: window from ${plan?.windowStartIndex}, first kept ${plan?.firstKeptEntryIndex}, ` +
        `${plan?.messagesToSummarize.length} messages to summarize, ${plan?.recentMessages.length} kept, split ${plan?.isSplitTurn}`,
    );
    medians.push(prepare.median);
  }
  const prepareMs = medians[0] ?? Number.NaN;
  return { ok: prepareMs < TARGET_MS, prepareMs, worstCasePrepareMs: medians[1] ?? Number.NaN };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (!runCompactionBench().ok) process.exitCode = 1;
}
