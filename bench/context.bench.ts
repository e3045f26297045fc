/**
 * Time to build the LLM view of the deepest leaf of the generated 100k-entry session from the
 * database: open the db, load the leaf's entries, buildSessionContext, convertToLlm. Target:
 * median < 150 ms. Also prints the naive route (parse every entry) for comparison.
 * Run: node bench/context.bench.ts [--runs N]
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { buildSessionContext } from "../core/session/context.ts";
import { convertToLlm } from "../core/session/llm-messages.ts";
import { loadContextEntries } from "../main/library/context-path.ts";
import { loadSessionEntries } from "../main/library/load.ts";
import { openDatabase } from "../main/store/open.ts";
import { contextTemplatesFrom, loadPromptTemplates } from "../prompts/index.ts";
import { fmt, importIntoNewLibrary, median, printTable, tempDir } from "./bench-utils.ts";
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
}

export function runContextBench(options: { runs?: number } = {}): ContextFigures {
  const runs = options.runs ?? 9;
  const generated = writeGeneratedSession(defaultGeneratedPath());
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
        ["naive: parse every entry, once", fmt(figures.naiveMs, 0)],
      ],
    );
    return figures;
  } finally {
    tmp.cleanup();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const runsAt = process.argv.indexOf("--runs");
  runContextBench(runsAt > 0 ? { runs: Number(process.argv[runsAt + 1]) } : {});
}
