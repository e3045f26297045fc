/**
 * What one APPEND by Canopy costs on the generated 100k-entry session: a chat turn's two
 * messages, a compaction entry, a label, against the old path measured in the same process and
 * run (every id of the session read to draw a new one, then a full recount of the cached figures);
 * and what an undo of a label, and a chat turn on the same session with tree problems (an orphan,
 * a duplicate id, a cycle) cost against the full recount they used to end in.
 * Run: node bench/append-cost.bench.ts [--runs N]
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { MessageEntry } from "../core/session/entries.ts";
import { randomEntryId, type UsedIds } from "../core/session/ids.ts";
import { createApi } from "../main/api/dispatch.ts";
import { createAppContext } from "../main/app-context.ts";
import { toEntryRow } from "../main/library/entry-rows.ts";
import { getViewLeaf, requireSession } from "../main/library/load.ts";
import { refreshSessionStats } from "../main/library/stats.ts";
import { appendCompaction, appendMessageChain } from "../main/pipelines/persist.ts";
import { childIdsOf, deleteCanopyEntries, originsOf } from "../main/store/repos/edits.ts";
import { insertEntries, maxSeq, StoredEntryIds, storedEntryIds } from "../main/store/repos/entries.ts";
import { writeTransaction } from "../main/store/transactions.ts";
import { fmt, importIntoNewLibrary, median, numberArg, printTable, tempDir } from "./bench-utils.ts";
import { defaultGeneratedPath, writeGeneratedSession } from "./generate-session.ts";

type AppContext = ReturnType<typeof createAppContext>;

const user = { role: "user", content: "Next step?", timestamp: 1 } as const;
const reply = { role: "assistant", content: [{ type: "text", text: "Done." }], timestamp: 2 } as never;

/**
 * A chat turn's append as it was: the new ids checked against `ids` (before: every id read;
 * `StoredEntryIds` for a session with tree problems, whose old path differed only in its recount),
 * then every row recounted.
 */
function oldChatAppend(
  ctx: AppContext,
  sessionId: string,
  ids: (db: AppContext["db"], sid: number) => UsedIds & { add(id: string): unknown },
): void {
  const { db } = ctx;
  writeTransaction(db, () => {
    const row = requireSession(db, sessionId);
    const used = ids(db, row.sid);
    let parentId = row.last_leaf_id;
    let seq = Math.max(maxSeq(db, row.sid), row.header_line);
    const timestamp = new Date().toISOString();
    const rows = [user, reply].map((message) => {
      const id = randomEntryId(used);
      used.add(id);
      const entry: MessageEntry = { type: "message", id, parentId, timestamp, message };
      parentId = id;
      return toEntryRow(entry, ++seq, JSON.stringify(entry), "canopy");
    });
    insertEntries(db, row.sid, rows);
    refreshSessionStats(db, row);
  })();
}

/** Undo of the label just set, as it was: the entry's checks and removal, then a full recount. */
function oldUndoLabel(ctx: AppContext, sessionId: string, labelId: string): void {
  const { db } = ctx;
  writeTransaction(db, () => {
    const row = requireSession(db, sessionId);
    if (originsOf(db, row.sid, [labelId]).some((o) => o !== "canopy")) throw new Error("not Canopy's");
    if (childIdsOf(db, row.sid, [labelId]).length > 0) throw new Error("has children");
    deleteCanopyEntries(db, row.sid, [labelId]);
    refreshSessionStats(db, row);
  })();
}

/** The generated file with another header id and tree problems after its lines. */
function writeProblemCopy(generatedFile: string, out: string): void {
  const lines = fs.readFileSync(generatedFile, "utf8").trimEnd().split("\n");
  const header = JSON.parse(lines[0] as string) as { id: string };
  lines[0] = JSON.stringify({ ...header, id: `${header.id}-problems` });
  const some = (JSON.parse(lines[Math.floor(lines.length / 2)] as string) as { id: string }).id;
  const at = new Date(0).toISOString();
  const message = (id: string, parentId: string) =>
    JSON.stringify({
      type: "message",
      id,
      parentId,
      timestamp: at,
      message: { role: "user", content: "q", timestamp: 1 },
    });
  lines.push(
    message("orphan01", "gone0001"),
    message(some, some),
    message("cyc00001", "cyc00002"),
    message("cyc00002", "cyc00001"),
  );
  fs.writeFileSync(out, `${lines.join("\n")}\n`);
}

function target(ctx: AppContext, sessionId: string) {
  const leafId = requireSession(ctx.db, sessionId).last_leaf_id;
  return { sessionId, leafId, viewLeafId: getViewLeaf(ctx.db, sessionId) };
}

const OPS = {
  old: "old: chat turn append (all ids read + full recount)",
  recount: "old part: full recount alone (refreshSessionStats)",
  ids: "old part: every id read (storedEntryIds)",
  chat: "chat turn append (appendMessageChain, user + reply)",
  compaction: "compaction entry (appendCompaction)",
  label: "label (edits:label through the API)",
  oldUndo: "old: undo of a label (checks, removal, full recount)",
  undo: "undo of a label (edits:undo through the API)",
  oldProblemChat: "old: chat turn append, session with tree problems (full recount)",
  problemChat: "chat turn append, session with tree problems",
} as const;
type Op = keyof typeof OPS;

export async function runAppendCostBench(options: { runs?: number } = {}): Promise<void> {
  const runs = options.runs ?? 5;
  const generated = writeGeneratedSession(defaultGeneratedPath());
  const tmp = tempDir("canopy-append-bench-");
  try {
    const library = path.join(tmp.dir, "library.db");
    const sessionId = importIntoNewLibrary(library, generated.file);
    const problemFile = path.join(tmp.dir, "problems.jsonl");
    writeProblemCopy(generated.file, problemFile);
    const problemId = importIntoNewLibrary(library, problemFile);
    const ctx = createAppContext({ dbPath: library, seedDemo: false, loadUserHooks: false, env: {} });
    const api = createApi(ctx);
    const { sid } = requireSession(ctx.db, sessionId);
    if (requireSession(ctx.db, problemId).problem_count === 0)
      throw new Error("the problem copy has no problems");
    const label = async (): Promise<string> => {
      const result = await api.call("edits:label", {
        sessionId,
        targetId: requireSession(ctx.db, sessionId).last_leaf_id as string,
        label: `l${Math.random()}`,
      });
      if (!result.ok) throw new Error(result.error.message);
      return result.value.entryId as string;
    };
    // Set before each timed undo, not timed.
    const setup: Partial<Record<Op, () => Promise<unknown>>> = { oldUndo: label, undo: label };
    let labelId = "";
    const run: Record<Op, () => unknown> = {
      old: () => oldChatAppend(ctx, sessionId, storedEntryIds),
      recount: () => refreshSessionStats(ctx.db, { sid, id: sessionId }),
      ids: () => storedEntryIds(ctx.db, sid),
      chat: () => appendMessageChain(ctx, target(ctx, sessionId), [user, reply]),
      compaction: () => {
        const state = target(ctx, sessionId);
        const result = { summary: "s", firstKeptEntryId: state.leafId as string, tokensBefore: 1 };
        return appendCompaction(ctx, state, result, false, false);
      },
      label,
      oldUndo: () => oldUndoLabel(ctx, sessionId, labelId),
      undo: async () => {
        const result = await api.call("edits:undo", { sessionId });
        if (!result.ok || result.value.operation !== "label") throw new Error("the undo undid no label");
      },
      oldProblemChat: () => oldChatAppend(ctx, problemId, (db, sid) => new StoredEntryIds(db, sid)),
      problemChat: () => appendMessageChain(ctx, target(ctx, problemId), [user, reply]),
    };
    const times = new Map<Op, number[]>();
    // Interleaved, so that every op sees the same load on a shared machine.
    for (let r = 0; r < runs + 1; r++) {
      for (const op of Object.keys(OPS) as Op[]) {
        const prepared = setup[op];
        if (prepared) labelId = (await prepared()) as string;
        const started = performance.now();
        await run[op]();
        // The first round warms the statement cache and the page cache.
        if (r > 0) times.set(op, [...(times.get(op) ?? []), performance.now() - started]);
      }
    }
    ctx.db.close();
    // Each op against the old path of the same action: the undo and the append to the session with
    // problems against theirs, the rest against the old chat turn append.
    const baseline: Partial<Record<Op, Op>> = { undo: "oldUndo", problemChat: "oldProblemChat" };
    const rows = (Object.keys(OPS) as Op[]).map((op) => {
      const ms = median(times.get(op) ?? []);
      const old = median(times.get(baseline[op] ?? "old") ?? []);
      return [OPS[op], fmt(ms, 1), `${fmt(old / ms, 1)}x`];
    });
    console.log(
      `\n${generated.entries} entries (${fmt(generated.bytes / 1e6)} MB), median of ${runs} runs in one process;` +
        "\nratio = old ms / op ms (above 1: cheaper than the old path); the old path is the old chat turn" +
        "\nappend, except for the undo and the append to the session with problems: their own old rows\n",
    );
    printTable(["append", "ms", "vs old"], rows);
  } finally {
    tmp.cleanup();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await runAppendCostBench({ runs: numberArg("--runs") ?? 5 });
}
