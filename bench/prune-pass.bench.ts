/**
 * The first prune of the generated 100k-entry session (SPEC §7.1 marks ~38,800 tool outputs) and
 * a second one (nothing left to prune): the current route against the previous one (kept below:
 * every candidate's whole JSON read and parsed, one lookup and one text read per row written),
 * with the whole-session load as baseline. Each run is a child process on a copy of one library;
 * rows read and written and JSON.parse calls are counted in the child, and both routes must leave
 * every row of the library the same (a digest of each row's JSON, original and token estimate).
 * Run: node bench/prune-pass.bench.ts [--runs N]
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Statement } from "better-sqlite3";
import { applyPruningToMessage, planPruningOf, type ToolOutput } from "../core/compaction/pruning.ts";
import type { MessageEntry, SessionEntry } from "../core/session/entries.ts";
import type { AppContext } from "../main/api/types.ts";
import { createAppContext } from "../main/app-context.ts";
import { entryTokens } from "../main/library/entry-rows.ts";
import { requireSession } from "../main/library/load.ts";
import { applyPrune } from "../main/pipelines/pruning.ts";
import { loadPathLinks, loadSessionState } from "../main/pipelines/session-state.ts";
import { type EntryLink, entryJsonByPk, forEachEntryRow } from "../main/store/repos/entries.ts";
import { replaceEntryJson } from "../main/store/repos/entry-json.ts";
import { writeTransaction } from "../main/store/transactions.ts";
import { fmt, importIntoNewLibrary, median, numberArg, printTable, tempDir } from "./bench-utils.ts";
import { defaultGeneratedPath, writeGeneratedSession } from "./generate-session.ts";

const OPS = {
  baseline: "baseline: whole session parsed (loadSessionState)",
  previousFirst: "first prune, previous route",
  currentFirst: "first prune, current route",
  previousSecond: "second prune, previous route",
  currentSecond: "second prune, current route",
} as const;
type Op = keyof typeof OPS;

interface ChildResult {
  ms: number;
  pruned: number;
  rowsRead: number;
  parsed: number;
  rowsWritten: number;
  /** For a second prune: the first and the second together (what a chat turn's checks take). */
  turnMs: number;
  /** sha256 of every row of the session after the run (seq, tokens, JSON, original). */
  digest: string;
}

/** The route before this bench's change (main/pipelines/pruning.ts + tool-outputs.ts at de06b9f). */
function previousApplyPrune(ctx: AppContext, sessionId: string): number {
  const walked = loadPathLinks(ctx.db, sessionId);
  if (walked === null) throw new Error("the generated session has no tree problems");
  const results = walked.up
    .map((position) => walked.links[position] as EntryLink)
    .filter((link) => link[3] === "message" && link[4] === "toolResult");
  const facts = ctx.db
    .prepare(
      `SELECT e.tokens AS tokens,
              json_extract(coalesce(j.json, CAST(substr(b.data, e.json_at + 1, e.json_len) AS TEXT)),
                           '$.message.toolName', '$.message.prunedAt') AS pair
         FROM json_each(?) AS k JOIN entries AS e ON e.pk = k.value
         LEFT JOIN entry_json AS j ON j.pk = e.pk LEFT JOIN entry_blocks AS b ON b.block = e.json_block
        ORDER BY k.key`,
    )
    .all(JSON.stringify(results.map((link) => link[0]))) as { tokens: number; pair: string }[];
  const pkOf = new Map<string, number>();
  const outputs = facts.map((fact, i): ToolOutput => {
    const [pk, id] = results[i] as EntryLink;
    if (id !== null) pkOf.set(id, pk);
    const [toolName, prunedAt] = JSON.parse(fact.pair) as [unknown, unknown];
    return { entryId: id ?? undefined, tokens: fact.tokens, toolName, pruned: prunedAt !== null };
  });
  const plan = planPruningOf(outputs);
  if (!plan.willPrune) return 0;
  const ids = plan.candidates.map((candidate) => candidate.entryId);
  const jsons = entryJsonByPk(
    ctx.db,
    ids.map((id) => pkOf.get(id) as number),
  );
  const entries = new Map(jsons.map((json, i) => [ids[i] as string, JSON.parse(json) as SessionEntry]));
  const prunedAt = Date.now();
  const { sid } = requireSession(ctx.db, sessionId);
  writeTransaction(ctx.db, () => {
    for (const candidate of plan.candidates) {
      const entry = entries.get(candidate.entryId) as MessageEntry | undefined;
      if (entry?.message.role !== "toolResult") continue;
      const pruned: MessageEntry = {
        ...entry,
        message: applyPruningToMessage(entry.message, candidate.tokens, prunedAt),
      };
      replaceEntryJson(ctx.db, sid, candidate.entryId, JSON.stringify(pruned), entryTokens(pruned));
    }
  })();
  return plan.candidates.length;
}

/** Counts rows handed to JS, rows changed and JSON.parse calls from now on. */
function startCounting(ctx: AppContext): () => Omit<ChildResult, "ms" | "turnMs" | "pruned" | "digest"> {
  const proto = Object.getPrototypeOf(ctx.db.prepare("SELECT 1")) as Statement;
  const { all, get, run } = proto;
  const parse = JSON.parse;
  const counts = { rowsRead: 0, parsed: 0, rowsWritten: 0 };
  proto.all = function (this: Statement, ...args: unknown[]) {
    const rows = all.apply(this, args);
    counts.rowsRead += rows.length;
    return rows;
  } as Statement["all"];
  proto.get = function (this: Statement, ...args: unknown[]) {
    const row = get.apply(this, args);
    if (row !== undefined) counts.rowsRead++;
    return row;
  } as Statement["get"];
  proto.run = function (this: Statement, ...args: unknown[]) {
    const result = run.apply(this, args);
    counts.rowsWritten += result.changes;
    return result;
  } as Statement["run"];
  JSON.parse = ((text: string, reviver?: (this: unknown, key: string, value: unknown) => unknown) => {
    counts.parsed++;
    return parse(text, reviver);
  }) as typeof JSON.parse;
  return () => {
    Object.assign(proto, { all, get, run });
    JSON.parse = parse;
    return { ...counts };
  };
}

/** A digest of every row of the session: what "the same stored result" compares. */
function rowsDigest(ctx: AppContext, sessionId: string): string {
  const hash = createHash("sha256");
  forEachEntryRow(ctx.db, requireSession(ctx.db, sessionId).sid, (row) => {
    hash.update(JSON.stringify([row.seq, row.tokens, row.json, row.original_json]));
  });
  return hash.digest("hex");
}

function runChild(op: Op, dbPath: string, sessionId: string): ChildResult {
  // One prunedAt for both routes, so that their stored rows can be compared.
  Date.now = () => Date.parse("2026-03-01T12:00:00.000Z");
  const ctx = createAppContext({ dbPath, seedDemo: false, loadUserHooks: false, env: {} });
  try {
    const prune = op.startsWith("previous")
      ? () => previousApplyPrune(ctx, sessionId)
      : () => applyPrune(ctx, sessionId).prunedCount;
    // A chat turn prunes twice (SPEC §9.3: before the prompt and after the reply).
    const firstStarted = performance.now();
    if (op.endsWith("Second")) prune();
    const firstMs = performance.now() - firstStarted;
    const stop = startCounting(ctx);
    const started = performance.now();
    let pruned = 0;
    if (op === "baseline") loadSessionState(ctx.db, sessionId);
    else pruned = prune();
    const ms = performance.now() - started;
    const counts = stop();
    const digest = op === "baseline" ? "" : rowsDigest(ctx, sessionId);
    return { ms, turnMs: firstMs + ms, pruned, ...counts, digest };
  } finally {
    ctx.db.close();
  }
}

export function runPrunePassBench(options: { runs?: number } = {}): void {
  const runs = options.runs ?? 1;
  const generated = writeGeneratedSession(defaultGeneratedPath());
  const tmp = tempDir("canopy-prune-bench-");
  try {
    const library = path.join(tmp.dir, "library.db");
    const sessionId = importIntoNewLibrary(library, generated.file);
    const results = new Map<Op, ChildResult[]>();
    for (let run = 0; run < runs; run++) {
      for (const op of Object.keys(OPS) as Op[]) {
        const copy = path.join(tmp.dir, `run-${op}.db`);
        fs.copyFileSync(library, copy);
        const child = spawnSync(
          process.execPath,
          [fileURLToPath(import.meta.url), "--child", op, copy, sessionId],
          {
            encoding: "utf8",
            maxBuffer: 1 << 24,
          },
        );
        for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(copy + suffix, { force: true });
        const line = child.stdout.trim().split("\n").at(-1) ?? "";
        if (child.status !== 0 || !line.startsWith("{"))
          throw new Error(`${op} failed:\n${child.stderr}${child.stdout}`);
        results.set(op, [...(results.get(op) ?? []), JSON.parse(line) as ChildResult]);
      }
    }
    const of = (op: Op) => {
      const list = results.get(op) ?? [];
      const last = list.at(-1) as ChildResult;
      return { ...last, ms: median(list.map((r) => r.ms)), turnMs: median(list.map((r) => r.turnMs)) };
    };
    const base = of("baseline").ms;
    const rows = (Object.keys(OPS) as Op[]).map((op) => {
      const r = of(op);
      return [
        OPS[op],
        fmt(r.ms),
        `${fmt(r.ms / base, 2)}x`,
        fmt(r.pruned),
        fmt(r.rowsRead),
        fmt(r.parsed),
        fmt(r.rowsWritten),
      ];
    });
    console.log(
      `\n${generated.entries} entries (${fmt(generated.bytes / 1e6)} MB), median of ${runs} run(s), each in its own process;` +
        "\nvs baseline = run ms / baseline ms (the whole-session load, measured in the same run)\n",
    );
    printTable(["operation", "ms", "vs baseline", "pruned", "rows read", "JSON.parse", "rows written"], rows);
    const ratio = (previous: Op, current: Op) => fmt(of(previous).ms / of(current).ms, 1);
    const turn = (op: Op) => of(op).turnMs;
    const same = (previous: Op, current: Op) =>
      (results.get(previous) ?? []).every((r, i) => r.digest === results.get(current)?.[i]?.digest)
        ? "yes"
        : "NO";
    console.log(
      `\nprevious / current: first prune ${ratio("previousFirst", "currentFirst")}x, ` +
        `second prune ${ratio("previousSecond", "currentSecond")}x (the V8 collection of what the first prune ` +
        "left tends to land in the second)" +
        `\nfirst + second prune (a chat turn's two checks, in one process): previous ${fmt(turn("previousSecond"))} ms, ` +
        `current ${fmt(turn("currentSecond"))} ms, ${fmt(turn("previousSecond") / turn("currentSecond"), 1)}x` +
        `\nevery stored row the same after both routes: first prune ${same("previousFirst", "currentFirst")}, ` +
        `second prune ${same("previousSecond", "currentSecond")}`,
    );
  } finally {
    tmp.cleanup();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const childAt = process.argv.indexOf("--child");
  if (childAt > 0) {
    const [op, dbPath, sessionId] = process.argv.slice(childAt + 1) as [Op, string, string];
    console.log(JSON.stringify(runChild(op, dbPath, sessionId)));
  } else {
    runPrunePassBench({ runs: numberArg("--runs") ?? 1 });
  }
}
