/**
 * Everyday operations on the generated 100k-entry session through the API: opening it
 * (session:tree), a label (and its undo), a drop-target preview while dragging the leaf marker,
 * the compaction plan and the pruning preview. None should parse the whole session into memory
 * at once; the naive route (every entry parsed, a full tree index) is printed as the baseline,
 * and each preview is paired with the same plan computed from every entry, runs interleaved.
 * Run: node bench/session-ops.bench.ts [--runs N]
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { planPruning } from "../core/compaction/pruning.ts";
import { buildTreeIndex } from "../core/session/tree.ts";
import { createApi } from "../main/api/dispatch.ts";
import { createAppContext } from "../main/app-context.ts";
import { loadSessionEntries } from "../main/library/load.ts";
import { planCompaction } from "../main/pipelines/compaction.ts";
import { loadSessionState } from "../main/pipelines/session-state.ts";
import { openDatabase } from "../main/store/open.ts";
import { fmt, importIntoNewLibrary, median, printTable, tempDir } from "./bench-utils.ts";
import { defaultGeneratedPath, writeGeneratedSession } from "./generate-session.ts";

const rssMb = (): number => process.resourceUsage().maxRSS / 1024;

export async function runSessionOpsBench(options: { runs?: number } = {}): Promise<void> {
  const runs = options.runs ?? 3;
  const generated = writeGeneratedSession(defaultGeneratedPath());
  const tmp = tempDir("canopy-ops-bench-");
  try {
    const file = path.join(tmp.dir, "library.db");
    const sessionId = importIntoNewLibrary(file, generated.file);
    const api = createApi(createAppContext({ dbPath: file, seedDemo: false, loadUserHooks: false, env: {} }));
    const target = generated.deepestLeafId;
    const rows: string[][] = [["(setup: import)", "", fmt(rssMb())]];
    const measure = async (name: string, run: () => Promise<unknown>): Promise<void> => {
      const times: number[] = [];
      for (let i = 0; i < runs; i++) {
        const started = performance.now();
        const result = (await run()) as { ok?: boolean; error?: unknown };
        times.push(performance.now() - started);
        if (result && result.ok === false) throw new Error(`${name}: ${JSON.stringify(result.error)}`);
      }
      rows.push([name, fmt(median(times)), fmt(rssMb())]);
    };
    await measure("edits:label + edits:undo", async () => {
      await api.call("edits:label", { sessionId, targetId: target, label: "bench" });
      return api.call("edits:undo", { sessionId });
    });
    await measure("navigation:preview (a drop target)", () =>
      api.call("navigation:preview", { sessionId, targetId: target }),
    );
    await measure("session:tree (opening the session)", () => api.call("session:tree", { sessionId }));
    // A preview and its baseline (the plan from every parsed entry) run in turns, so that the
    // load of a shared machine falls on both alike.
    const paired = async (name: string, preview: () => Promise<unknown>, baseline: () => unknown): Promise<void> => {
      const fast: number[] = [];
      const full: number[] = [];
      for (let i = 0; i < runs; i++) {
        let started = performance.now();
        const result = (await preview()) as { ok?: boolean; error?: unknown };
        fast.push(performance.now() - started);
        if (result.ok === false) throw new Error(`${name}: ${JSON.stringify(result.error)}`);
        started = performance.now();
        baseline();
        full.push(performance.now() - started);
      }
      rows.push([name, fmt(median(fast)), fmt(rssMb())]);
      rows.push([`  baseline: from every entry (${fmt(median(full) / median(fast), 1)}x)`, fmt(median(full)), fmt(rssMb())]);
    };
    await paired(
      "compaction:preview (the plan on the canvas)",
      () => api.call("compaction:preview", { sessionId }),
      () => planCompaction(api.ctx, { sessionId }),
    );
    await paired(
      "pruning:preview (old tool outputs)",
      () => api.call("pruning:preview", { sessionId }),
      () => planPruning(loadSessionState(api.ctx.db, sessionId).path),
    );
    api.ctx.db.close();
    const db = openDatabase(file);
    await measure("naive: parse every entry, full tree index", async () =>
      buildTreeIndex(loadSessionEntries(db, sessionId)),
    );
    db.close();
    console.log(`\n${generated.entries} entries, median of ${runs} runs; peak RSS of the process so far\n`);
    printTable(["operation", "ms", "peak RSS MB"], rows);
  } finally {
    tmp.cleanup();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const runsAt = process.argv.indexOf("--runs");
  await runSessionOpsBench(runsAt > 0 ? { runs: Number(process.argv[runsAt + 1]) } : {});
}
