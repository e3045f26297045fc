/**
 * Pruning on the generated 100k-entry session (SPEC §7.1 marks ~38,800 of its ~48,700 tool
 * outputs): a prune check (preview), the first prune and a second one (nothing left to prune), by
 * the previous route (main at c955775, kept below: each check reads every tool result's JSON for
 * its tool name and prunedAt, each pruned original is copied into original_json) and by the
 * current one (tool_facts, migration 009, filled by the first check; originals left in their
 * blocks), with the whole-session load as baseline. The current route's first check of a session
 * fills tool_facts, so it is timed apart from a later check. The first prune is also timed as
 * main at 4236486 wrote it (the current route's read, then two statements per output:
 * per-row-prune.ts), which must leave the same rows. Each run is a child process on a copy
 * of one library (as an import leaves it: no tool_facts rows); rows read and written and
 * JSON.parse calls are counted in the child, and both routes must leave every row the same (a
 * digest of each row's JSON, original and token estimate). The preview's answer is timed and
 * sized as JSON both ways: each candidate listed (what every preview sent before; now only
 * `listCandidates`, the CLI's --dry-run) and counts by tool (what the plan panel gets now).
 * Run: node bench/prune-pass.bench.ts [--runs N]
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Database, Statement } from "better-sqlite3";
import { applyPruningToMessage, planPruningOf, type ToolOutput } from "../core/compaction/pruning.ts";
import type { MessageEntry } from "../core/session/entries.ts";
import { toJson } from "../core/text/json-deep.ts";
import { createAppContext } from "../main/app-context.ts";
import { entryTokens } from "../main/library/entry-rows.ts";
import { importPath } from "../main/library/import.ts";
import { requireSession } from "../main/library/load.ts";
import { applyPrune, planPrune } from "../main/pipelines/pruning.ts";
import { loadPathLinks, loadSessionState } from "../main/pipelines/session-state.ts";
import { loadToolOutputs } from "../main/pipelines/tool-outputs.ts";
import { openDatabase } from "../main/store/open.ts";
import type { EntryLink } from "../main/store/repos/entries.ts";
import { entryJsonWithoutByPk } from "../main/store/repos/entry-json.ts";
import { writeTransaction } from "../main/store/transactions.ts";
import { fmt, median, numberArg, printTable, tempDir } from "./bench-utils.ts";
import { perRowReplaceEntryJsonByPk } from "./per-row-prune.ts";
import { defaultGeneratedPath, writeGeneratedSession } from "./generate-session.ts";

const OPS = {
  baseline: "baseline: whole session parsed (loadSessionState)",
  previousCheck: "prune check (preview), previous route",
  currentFirstCheck: "first check, current route (fills tool_facts)",
  currentCheck: "later check, current route",
  listedAnswer: "later check + answer JSON, each candidate (every preview before)",
  countedAnswer: "later check + answer JSON, counts by tool (the plan panel's)",
  previousFirst: "first prune, previous route",
  currentFirst: "first prune, current route (no check before)",
  perRowFirst: "first prune, writes per row (4236486; no check before)",
  previousSecond: "second prune, previous route",
  currentSecond: "second prune, current route",
} as const;
type Op = keyof typeof OPS;

interface ChildResult {
  ms: number;
  /** CPU time of the process (user + system) over the same span: less swayed by a busy machine. */
  cpuMs: number;
  pruned: number;
  rowsRead: number;
  parsed: number;
  rowsWritten: number;
  /** For a second prune: the first and the second together (what a chat turn's checks take). */
  turnMs: number;
  /** sha256 of every row of the session after the run (seq, tokens, JSON, original). */
  digest: string;
  /** The library's size after the run (pages in use or free, MB). */
  mb: number;
  /** A preview's answer as JSON (bytes), for the answer ops. */
  answerBytes: number;
}

const BLOCK_TEXT = "CAST(substr(b.data, e.json_at + 1, e.json_len) AS TEXT)";

/** The previous route's read of the path's tool results (tool-outputs.ts at c955775): each one's JSON. */
function previousToolOutputs(db: Database, sessionId: string) {
  const walked = loadPathLinks(db, sessionId);
  if (walked === null) throw new Error("the generated session has no tree problems");
  const results = walked.up
    .map((position) => walked.links[position] as EntryLink)
    .filter((link) => link[3] === "message" && link[4] === "toolResult");
  const facts = db
    .prepare(
      `SELECT tokens, CASE WHEN json_valid(text) THEN json_extract(text, '$.message.toolName', '$.message.prunedAt') END AS pair
         FROM (SELECT k.key AS key, e.tokens AS tokens, coalesce(j.json, ${BLOCK_TEXT}) AS text
                 FROM json_each(?) AS k JOIN entries AS e ON e.pk = k.value
                 LEFT JOIN entry_json AS j ON j.pk = e.pk LEFT JOIN entry_blocks AS b ON b.block = e.json_block)
        ORDER BY key`,
    )
    .all(JSON.stringify(results.map((link) => link[0]))) as { tokens: number; pair: string | null }[];
  const pkOf = new Map<string, number>();
  const outputs = facts.map((fact, i): ToolOutput => {
    const [pk, id] = results[i] as EntryLink;
    if (id !== null) pkOf.set(id, pk);
    if (fact.pair === null) throw new Error("the generated session has no deeply nested entry");
    const [toolName, prunedAt] = JSON.parse(fact.pair) as [unknown, unknown];
    return { entryId: id ?? undefined, tokens: fact.tokens, toolName, pruned: prunedAt !== null };
  });
  return { outputs, pkOf };
}

/** The previous route's preview (pruning.ts at c955775): the plan and each candidate's tool name. */
function previousCheck(db: Database, sessionId: string): number {
  const { outputs } = previousToolOutputs(db, sessionId);
  const plan = planPruningOf(outputs);
  const names = new Map(outputs.map((output) => [output.entryId, output.toolName]));
  return plan.candidates.map((candidate) => names.get(candidate.entryId)).length;
}

/**
 * The previous route's apply (pruning.ts + entry-json.ts at c955775): SQLite cuts each output out,
 * JS rewrites the rest, and each original is copied out of its block into original_json.
 */
function previousApplyPrune(db: Database, sessionId: string): number {
  const { outputs, pkOf } = previousToolOutputs(db, sessionId);
  const plan = planPruningOf(outputs);
  if (!plan.willPrune) return 0;
  const pks = plan.candidates.map((candidate) => pkOf.get(candidate.entryId) as number);
  const text = `coalesce(j.json, ${BLOCK_TEXT})`;
  const cut = db
    .prepare(
      `SELECT json_set(${text}, '$.message.content', 0)
         FROM json_each(?) AS k JOIN entries AS e ON e.pk = k.value
         LEFT JOIN entry_json AS j ON j.pk = e.pk LEFT JOIN entry_blocks AS b ON b.block = e.json_block
        ORDER BY k.key`,
    )
    .pluck(true)
    .all(JSON.stringify(pks)) as string[];
  const prunedAt = Date.now();
  const setJson = db.prepare(
    `INSERT INTO entry_json (pk, json, original_json)
     SELECT e.pk, @json, CASE WHEN j.pk IS NULL THEN ${BLOCK_TEXT} END
       FROM entries AS e LEFT JOIN entry_json AS j ON j.pk = e.pk LEFT JOIN entry_blocks AS b ON b.block = e.json_block
      WHERE e.pk = @pk
     ON CONFLICT (pk) DO UPDATE SET original_json = coalesce(original_json, json), json = excluded.json
      WHERE json IS NOT excluded.json`,
  );
  const setTokens = db.prepare(
    "UPDATE entries SET tokens = @tokens WHERE pk = @pk AND tokens IS NOT @tokens",
  );
  writeTransaction(db, () => {
    plan.candidates.forEach((candidate, i) => {
      const entry = JSON.parse(cut[i] as string) as MessageEntry;
      const pruned: MessageEntry = {
        ...entry,
        message: applyPruningToMessage(entry.message as never, candidate.tokens, prunedAt),
      };
      const row = { pk: pks[i], json: toJson(pruned), tokens: entryTokens(pruned) };
      setJson.run(row);
      setTokens.run(row);
    });
  })();
  return plan.candidates.length;
}

/**
 * The current route's prune with the writes of main at 4236486 (replaceEntryJsonByPk then): two
 * statements per output, each keeping a statement journal for the entry_json triggers.
 */
function perRowApplyPrune(db: Database, sessionId: string): number {
  return writeTransaction(db, () => {
    const read = loadToolOutputs(db, sessionId);
    if (read === null) throw new Error("the generated session has no tree problems");
    const plan = planPruningOf(read.outputs);
    if (!plan.willPrune) return 0;
    const pks = plan.candidates.map((candidate) => read.pkOf(candidate.entryId) as number);
    const cut = entryJsonWithoutByPk(db, pks, "$.message.content");
    const prunedAt = Date.now();
    const rows = plan.candidates.map((candidate, i) => {
      if (cut[i] === null) throw new Error("the generated session has no deeply nested entry");
      const entry = JSON.parse(cut[i] as string) as MessageEntry;
      const pruned: MessageEntry = {
        ...entry,
        message: applyPruningToMessage(entry.message as never, candidate.tokens, prunedAt),
      };
      return { pk: pks[i] as number, json: toJson(pruned), tokens: entryTokens(pruned) };
    });
    perRowReplaceEntryJsonByPk(db, rows);
    return plan.candidates.length;
  })();
}

/** Counts rows handed to JS, rows changed and JSON.parse calls from now on. */
function startCounting(
  db: Database,
): () => Omit<ChildResult, "ms" | "cpuMs" | "turnMs" | "pruned" | "digest" | "mb" | "answerBytes"> {
  const proto = Object.getPrototypeOf(db.prepare("SELECT 1")) as Statement;
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

/**
 * A digest of every row of the session, by SQL: the JSON as stored and the original, copied
 * (previous route) or left in the block (current). What "the same rows" compares.
 */
function rowsDigest(db: Database, sessionId: string): string {
  const hash = createHash("sha256");
  const rows = db
    .prepare(
      `SELECT e.seq, e.tokens, coalesce(j.json, ${BLOCK_TEXT}),
              CASE WHEN j.original_in_block = 1 THEN ${BLOCK_TEXT} ELSE j.original_json END
         FROM entries AS e LEFT JOIN entry_json AS j ON j.pk = e.pk LEFT JOIN entry_blocks AS b ON b.block = e.json_block
        WHERE e.sid = ? ORDER BY e.seq`,
    )
    .raw(true)
    .iterate(requireSession(db, sessionId).sid) as IterableIterator<unknown[]>;
  for (const row of rows) hash.update(JSON.stringify(row));
  return hash.digest("hex");
}

function cpuMsSince(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

function runChild(op: Op, dbPath: string, sessionId: string): ChildResult {
  // One prunedAt for both routes, so that their stored rows can be compared.
  Date.now = () => Date.parse("2026-03-01T12:00:00.000Z");
  const previous = op.startsWith("previous");
  const ctx = previous ? null : createAppContext({ dbPath, seedDemo: false, loadUserHooks: false, env: {} });
  const db = ctx?.db ?? openDatabase(dbPath);
  try {
    const prune = ctx
      ? op === "perRowFirst"
        ? () => perRowApplyPrune(db, sessionId)
        : () => applyPrune(ctx, sessionId).prunedCount
      : () => previousApplyPrune(db, sessionId);
    const check = ctx
      ? () => planPrune(ctx, sessionId).candidateCount
      : () => previousCheck(db, sessionId);
    // A chat turn prunes twice (SPEC §9.3: before the prompt and after the reply).
    const firstStarted = performance.now();
    if (op.endsWith("Second")) prune();
    else if (op === "currentCheck" || op.endsWith("Answer")) check();
    const firstMs = performance.now() - firstStarted;
    const stop = startCounting(db);
    const started = performance.now();
    const cpu = process.cpuUsage();
    let pruned = 0;
    let answerBytes = 0;
    if (op === "baseline") loadSessionState(db, sessionId);
    else if (op.endsWith("Answer") && ctx) {
      // What the channel sends: the plan made and written as JSON (HTTP; IPC clones the same object).
      const plan = planPrune(ctx, sessionId, undefined, { listCandidates: op === "listedAnswer" });
      answerBytes = Buffer.byteLength(JSON.stringify(plan));
      pruned = plan.candidateCount;
    }
    else if (op.endsWith("Check")) pruned = check();
    else pruned = prune();
    const ms = performance.now() - started;
    const cpuMs = cpuMsSince(cpu);
    const counts = stop();
    const digest = op === "baseline" || op.endsWith("Answer") ? "" : rowsDigest(db, sessionId);
    const pages = (db.pragma("page_count", { simple: true }) as number) * (db.pragma("page_size", { simple: true }) as number);
    return { ms, cpuMs, turnMs: firstMs + ms, pruned, ...counts, digest, mb: pages / 1e6, answerBytes };
  } finally {
    db.close();
  }
}

/** A library holding the session as an import leaves it; its session id. */
function importedLibrary(file: string, sessionFile: string): string {
  const ctx = createAppContext({ dbPath: file, seedDemo: false, loadUserHooks: false, env: {} });
  try {
    const sessionId = importPath(ctx.db, sessionFile).files[0]?.sessionId;
    if (!sessionId) throw new Error(`${sessionFile} did not import`);
    ctx.db.pragma("wal_checkpoint(TRUNCATE)");
    return sessionId;
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
    const sessionId = importedLibrary(library, generated.file);
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
      return {
        ...last,
        ms: median(list.map((r) => r.ms)),
        cpuMs: median(list.map((r) => r.cpuMs)),
        turnMs: median(list.map((r) => r.turnMs)),
      };
    };
    const base = of("baseline").ms;
    const rows = (Object.keys(OPS) as Op[]).map((op) => {
      const r = of(op);
      return [
        OPS[op],
        fmt(r.ms),
        fmt(r.cpuMs),
        `${fmt(r.ms / base, 2)}x`,
        fmt(r.pruned),
        fmt(r.rowsRead),
        fmt(r.parsed),
        fmt(r.rowsWritten),
      ];
    });
    console.log(
      `\n${generated.entries} entries (${fmt(generated.bytes / 1e6)} MB), median of ${runs} run(s), each in its own process;` +
        "\nvs baseline = run ms / baseline ms (the whole-session load, measured in the same run); cpu ms: the" +
        "\nchild's user + system time over the same span (steadier on a shared machine);" +
        "\npruned = candidates (check) or outputs pruned\n",
    );
    printTable(
      ["operation", "ms", "cpu ms", "vs baseline", "pruned", "rows read", "JSON.parse", "rows written"],
      rows,
    );
    const ratio = (previous: Op, current: Op) =>
      `${fmt(of(previous).ms / of(current).ms, 1)}x (cpu ${fmt(of(previous).cpuMs / of(current).cpuMs, 1)}x)`;
    const turn = (op: Op) => of(op).turnMs;
    const same = (previous: Op, current: Op) =>
      (results.get(previous) ?? []).every((r, i) => r.digest === results.get(current)?.[i]?.digest)
        ? "yes"
        : "NO";
    console.log(
      `\nprevious / current: first check ${ratio("previousCheck", "currentFirstCheck")}, later check ` +
        `${ratio("previousCheck", "currentCheck")}, first prune ` +
        `${ratio("previousFirst", "currentFirst")}, second prune ${ratio("previousSecond", "currentSecond")}` +
        `\nfirst prune, writes per row / current: ${ratio("perRowFirst", "currentFirst")}` +
        `\nfirst + second prune (a chat turn's two checks, in one process): previous ${fmt(turn("previousSecond"))} ms, ` +
        `current ${fmt(turn("currentSecond"))} ms, ${fmt(turn("previousSecond") / turn("currentSecond"), 1)}x` +
        `\nevery stored row the same after both routes: check ${same("previousCheck", "currentCheck")}, first prune ` +
        `${same("previousFirst", "currentFirst")}, second prune ${same("previousSecond", "currentSecond")}, ` +
        `first prune with writes per row ${same("perRowFirst", "currentFirst")}` +
        `\npreview answer: each candidate ${fmt(of("listedAnswer").answerBytes / 1e3)} KB in ${fmt(of("listedAnswer").ms)} ms, ` +
        `counts by tool ${fmt(of("countedAnswer").answerBytes / 1e3, 1)} KB in ${fmt(of("countedAnswer").ms)} ms` +
        `\nlibrary size after the first prune: previous ${fmt(of("previousFirst").mb)} MB, current ${fmt(of("currentFirst").mb)} MB ` +
        `(before: ${fmt(fs.statSync(library).size / 1e6)} MB)`,
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
