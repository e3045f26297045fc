/**
 * Restoring pruned tool outputs on the generated 100k-entry session (~38,800 outputs pruned):
 * the previous route (main at e49e470, kept below: each original written back from its block
 * into entry_json) against the current one (the entry_json row goes, the entry reads its block
 * again), each on its own copy of one library; then the prune after that restore, and what
 * entry_json holds. Figures only. Run: node bench/prune-restore.bench.ts [--runs N]
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Database } from "better-sqlite3";
import type { SessionEntry } from "../core/session/entries.ts";
import { createAppContext } from "../main/app-context.ts";
import { entryTokens } from "../main/library/entry-rows.ts";
import { requireSession } from "../main/library/load.ts";
import { applyPrune, restorePruned } from "../main/pipelines/pruning.ts";
import { listPrunedEntryRows, restoreEntryJson } from "../main/store/repos/entry-json.ts";
import { writeTransaction } from "../main/store/transactions.ts";
import { fmt, generatedLibrary, median, numberArg, printTable, timed } from "./bench-utils.ts";

/** The previous restore: every original copied back into entry_json (the triggers read each). */
function previousRestore(db: Database, sessionId: string): number {
  return writeTransaction(db, () => {
    const { sid } = requireSession(db, sessionId);
    const rows = listPrunedEntryRows(db, sid);
    // restoreEntryJson without `readable` is that route, as it still is for a text SQLite cannot read.
    for (const row of rows) {
      const original = JSON.parse(row.originalJson) as SessionEntry;
      restoreEntryJson(db, row.pk, entryTokens(original));
    }
    return rows.length;
  })();
}

const entryJsonMb = (db: Database) =>
  ((db
    .prepare("SELECT sum(length(json)) + coalesce(sum(length(original_json)), 0) FROM entry_json")
    .pluck()
    .get() as number | null) ?? 0) / 1e6;

export function runPruneRestoreBench(options: { runs?: number } = {}): void {
  const runs = options.runs ?? 3;
  const lib = generatedLibrary("canopy-prune-restore-");
  try {
    const figures = {
      previous: [] as number[],
      current: [] as number[],
      prevNext: [] as number[],
      curNext: [] as number[],
    };
    const held = { previous: 0, current: 0 };
    let restored = 0;
    for (const route of ["previous", "current"] as const) {
      const dbPath = path.join(lib.tmp.dir, `${route}.db`);
      fs.copyFileSync(lib.dbPath, dbPath);
      const ctx = createAppContext({ dbPath, seedDemo: false, loadUserHooks: false });
      try {
        for (let run = 0; run < runs; run++) {
          const pruned = timed(() => applyPrune(ctx, lib.sessionId));
          if (run > 0) (route === "previous" ? figures.prevNext : figures.curNext).push(pruned.ms);
          const { ms, value } = timed(() =>
            route === "previous"
              ? previousRestore(ctx.db, lib.sessionId)
              : restorePruned(ctx, lib.sessionId).prunedCount,
          );
          figures[route].push(ms);
          restored = value;
        }
        held[route] = entryJsonMb(ctx.db);
      } finally {
        ctx.db.close();
      }
    }
    printTable(
      ["", "previous route", "current route"],
      [
        ["restore (ms, median)", fmt(median(figures.previous)), fmt(median(figures.current))],
        ["prune after a restore (ms, median)", fmt(median(figures.prevNext)), fmt(median(figures.curNext))],
        ["entry_json after the restores (MB)", fmt(held.previous, 1), fmt(held.current, 1)],
      ],
    );
    console.log(
      `${restored} outputs restored per run, ${runs} runs per route (each on its own copy of the library)`,
    );
  } finally {
    lib.tmp.cleanup();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) runPruneRestoreBench({ runs: numberArg("--runs") });
