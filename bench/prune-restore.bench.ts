/**
 * Restoring pruned tool outputs on the generated 100k-entry session (~38,800 outputs pruned):
 * the copy-back route (main at e49e470: each original written back from its block into
 * entry_json, as restoreEntryJson without `readable` still does one row), the per-row route (main
 * at 4236486, bench/per-row-prune.ts: the originals listed through a MATERIALIZED CTE, five statements per
 * row) and the current one (listed as SQLite hands them on, put back with a few statements for
 * them all), each on its own copy of one library; then the prune after that restore, and what
 * entry_json holds. Figures only. Run: node bench/prune-restore.bench.ts [--runs N]
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Database } from "better-sqlite3";
import type { SessionEntry } from "../core/session/entries.ts";
import type { AppContext } from "../main/api/types.ts";
import { createAppContext } from "../main/app-context.ts";
import { entryTokens } from "../main/library/entry-rows.ts";
import { requireSession } from "../main/library/load.ts";
import { applyPrune, restorePruned } from "../main/pipelines/pruning.ts";
import { listPrunedEntryRows, restoreEntryJson } from "../main/store/repos/entry-json.ts";
import { writeTransaction } from "../main/store/transactions.ts";
import { perRowRestore } from "./per-row-prune.ts";
import { fmt, generatedLibrary, median, numberArg, printTable, timed } from "./bench-utils.ts";

/** The copy-back restore: every original copied back into entry_json (the triggers read each). */
function copyBackRestore(db: Database, sessionId: string): number {
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

const ROUTES = {
  copyBack: "copy back (e49e470)",
  perRow: "per row (4236486)",
  current: "current",
} as const;
type Route = keyof typeof ROUTES;

/** A digest of what a restore may change (texts as bytes): the same after two routes, the same library. */
function stateDigest(db: Database): string {
  const hash = createHash("sha256");
  for (const sql of [
    "SELECT pk, tokens FROM entries ORDER BY pk",
    "SELECT pk, hex(json), hex(original_json), original_in_block FROM entry_json ORDER BY pk",
    "SELECT pk, pruned, hex(tool_name) FROM tool_facts ORDER BY pk",
    "SELECT pk, sid FROM usage_unread ORDER BY pk",
  ])
    for (const row of db.prepare(sql).raw(true).iterate() as IterableIterator<unknown[]>)
      hash.update(JSON.stringify(row));
  return hash.digest("hex");
}

export function runPruneRestoreBench(options: { runs?: number } = {}): void {
  const runs = options.runs ?? 3;
  const lib = generatedLibrary("canopy-prune-restore-");
  const routes = Object.keys(ROUTES) as Route[];
  const contexts = new Map(
    routes.map((route) => {
      const dbPath = path.join(lib.tmp.dir, `${route}.db`);
      fs.copyFileSync(lib.dbPath, dbPath);
      return [route, createAppContext({ dbPath, seedDemo: false, loadUserHooks: false })] as const;
    }),
  );
  try {
    const restoreMs = new Map<Route, number[]>(routes.map((route) => [route, []]));
    const restoreCpu = new Map<Route, number[]>(routes.map((route) => [route, []]));
    const nextMs = new Map<Route, number[]>(routes.map((route) => [route, []]));
    let restored = 0;
    // The routes take turns within each run (the machine's load changes over a run).
    for (let run = 0; run < runs; run++) {
      for (const route of routes) {
        const ctx = contexts.get(route) as AppContext;
        const pruned = timed(() => applyPrune(ctx, lib.sessionId));
        if (run > 0) nextMs.get(route)?.push(pruned.ms);
        const cpu = process.cpuUsage();
        const { ms, value } = timed(() =>
          route === "copyBack"
            ? copyBackRestore(ctx.db, lib.sessionId)
            : route === "perRow"
              ? perRowRestore(ctx.db, lib.sessionId).length
              : restorePruned(ctx, lib.sessionId).prunedCount,
        );
        const used = process.cpuUsage(cpu);
        restoreMs.get(route)?.push(ms);
        restoreCpu.get(route)?.push((used.user + used.system) / 1000);
        restored = value;
      }
    }
    // A prune after a restore is timed from the second run on: with one run there is none ("-").
    const column = (figures: Map<Route, number[]>) =>
      routes.map((route) => {
        const values = figures.get(route) ?? [];
        return values.length === 0 ? "-" : fmt(median(values));
      });
    printTable(
      ["", ...routes.map((route) => ROUTES[route])],
      [
        ["restore (ms, median)", ...column(restoreMs)],
        ["restore (cpu ms, median)", ...column(restoreCpu)],
        ["prune after a restore (ms, median)", ...column(nextMs)],
        [
          "entry_json after the restores (MB)",
          ...routes.map((route) => fmt(entryJsonMb(contexts.get(route)?.db as Database), 1)),
        ],
      ],
    );
    const same =
      stateDigest(contexts.get("perRow")?.db as Database) === stateDigest(contexts.get("current")?.db as Database);
    console.log(
      `${restored} outputs restored per run, ${runs} runs per route (each on its own copy of the library); ` +
        `per row / current: ${fmt(median(restoreCpu.get("perRow") ?? []) / median(restoreCpu.get("current") ?? []), 1)}x cpu; ` +
        `every row the same after the per-row and the current restores: ${same ? "yes" : "NO"}`,
    );
  } finally {
    for (const ctx of contexts.values()) ctx.db.close();
    lib.tmp.cleanup();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) runPruneRestoreBench({ runs: numberArg("--runs") });
