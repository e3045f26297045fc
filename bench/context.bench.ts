/**
 * Time to build the LLM view of the deepest leaf of the generated 100k-entry session from the
 * database: open the db, load the leaf's entries, buildSessionContext, convertToLlm. Target:
 * median < 150 ms. Also prints the naive route (parse every entry) for comparison, and the
 * leaf's parents one after the other as context:get loads them (reusing what the previous load
 * parsed: arrow moves up the tree). `--entries N --uncompacted`: a session of N entries without
 * compactions instead, whose deepest view holds its whole path.
 * Run: node bench/context.bench.ts [--runs N] [--entries N] [--uncompacted]
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { buildSessionContext } from "../core/session/context.ts";
import { convertToLlm } from "../core/session/llm-messages.ts";
import { loadContextEntries } from "../main/library/context-path.ts";
import { forgetPathReuse } from "../main/library/context-reuse.ts";
import { loadSessionEntries } from "../main/library/load.ts";
import { openDatabase } from "../main/store/open.ts";
import { contextTemplatesFrom, loadPromptTemplates } from "../prompts/index.ts";
import { fmt, importIntoNewLibrary, median, numberArg, printTable, tempDir } from "./bench-utils.ts";
import { defaultGeneratedPath, writeGeneratedSession } from "./generate-session.ts";

export interface ContextFigures {
  runs: number;
  totalMs: number;
  openMs: number;
  loadMs: number;
  buildMs: number;
  convertMs: number;
  naiveMs: number;
  messages: number;
  pathLength: number;
  loadedEntries: number;
  /** Median of the leaf's parents loaded one after the other, reusing the previous load. */
  parentsReusedMs: number;
}

export function runContextBench(
  options: { runs?: number; entries?: number; uncompacted?: boolean } = {},
): ContextFigures {
  const runs = options.runs ?? 9;
  const entries = options.entries ?? 100_000;
  const generated = options.uncompacted
    ? writeGeneratedSession(
        defaultGeneratedPath(entries).replace(/\.jsonl$/, "-uncompacted.jsonl"),
        entries,
        { compactAtTokens: 1e12 },
      )
    : writeGeneratedSession(defaultGeneratedPath(entries), entries);
  const templates = contextTemplatesFrom(loadPromptTemplates());
  const tmp = tempDir("canopy-ctx-bench-");
  try {
    const file = path.join(tmp.dir, "library.db");
    const sessionId = importIntoNewLibrary(file, generated.file);
    const leaf = generated.deepestLeafId;

    const total: number[] = [];
    const open: number[] = [];
    const load: number[] = [];
    const build: number[] = [];
    const convert: number[] = [];
    let messages = 0;
    let pathLength = 0;
    let loadedEntries = 0;
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      const db = openDatabase(file);
      const t1 = performance.now();
      const loaded = loadContextEntries(db, sessionId, leaf);
      const t2 = performance.now();
      const context = buildSessionContext(loaded.entries, loaded.leafId, loaded.index);
      const t3 = performance.now();
      const llm = convertToLlm(context.messages, templates);
      const t4 = performance.now();
      db.close();
      total.push(t4 - t0);
      open.push(t1 - t0);
      load.push(t2 - t1);
      build.push(t3 - t2);
      convert.push(t4 - t3);
      messages = llm.length;
      pathLength = context.path.length;
      loadedEntries = loaded.parsed;
    }

    // Up the tree from the leaf, as context:get loads (the first load, the leaf's, is not timed).
    const reusing = openDatabase(file);
    const parentsReused: number[] = [];
    let at = loadContextEntries(reusing, sessionId, leaf, { reuse: true });
    for (let i = 0; i < runs; i++) {
      const parent = at.entries.at(-2)?.id;
      if (parent === undefined) break;
      const t0 = performance.now();
      at = loadContextEntries(reusing, sessionId, parent, { reuse: true });
      convertToLlm(buildSessionContext(at.entries, at.leafId, at.index).messages, templates);
      parentsReused.push(performance.now() - t0);
    }
    forgetPathReuse(reusing);
    reusing.close();

    // The naive route, once: every entry parsed, then the same two core calls.
    const naiveStart = performance.now();
    const db = openDatabase(file);
    const all = loadSessionEntries(db, sessionId);
    convertToLlm(buildSessionContext(all, leaf).messages, templates);
    db.close();
    const naiveMs = performance.now() - naiveStart;

    const figures: ContextFigures = {
      runs,
      totalMs: median(total),
      openMs: median(open),
      loadMs: median(load),
      buildMs: median(build),
      convertMs: median(convert),
      naiveMs,
      messages,
      pathLength,
      loadedEntries,
      parentsReusedMs: median(parentsReused),
    };
    console.log(
      `\nLLM view of the deepest leaf (${generated.entries} entries, path of ${generated.mainPathLength}, ` +
        `${loadedEntries} entries read and parsed, ${messages} provider messages), median of ${runs} runs, target < 150 ms\n`,
    );
    printTable(
      ["step", "ms"],
      [
        ["open database", fmt(figures.openMs, 1)],
        ["load path entries", fmt(figures.loadMs, 1)],
        ["buildSessionContext", fmt(figures.buildMs, 1)],
        ["convertToLlm", fmt(figures.convertMs, 1)],
        ["total (median)", fmt(figures.totalMs, 1)],
        ["a parent after its child, reusing its load (median)", fmt(figures.parentsReusedMs, 1)],
        ["naive: parse every entry, once", fmt(figures.naiveMs, 0)],
      ],
    );
    return figures;
  } finally {
    tmp.cleanup();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const runs = numberArg("--runs");
  const entries = numberArg("--entries");
  runContextBench({
    ...(runs === undefined ? {} : { runs }),
    ...(entries === undefined ? {} : { entries }),
    uncompacted: process.argv.includes("--uncompacted"),
  });
}
