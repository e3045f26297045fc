/**
 * Full-parse import paths: a session seen for the first time, and a known session whose file
 * was rewritten, moved, or (v1/v2 files) grew. Merging adds what is not stored yet and never
 * loses anything already stored (D2): a v1 file its agent migrated gives the stored entries the
 * agent's ids first (agent-migration.ts), and an output the agent pruned is shown pruned with the
 * stored one kept as the original. Everything runs in one transaction.
 */
import { createHash } from "node:crypto";
import type { ImportedFileReport, SessionProblem } from "../../core/api/dto.ts";
import type { SessionEntry } from "../../core/session/entries.ts";
import type { MalformedLine } from "../../core/session/jsonl.ts";
import { type Database, withoutForeignKeyChecks } from "../store/open.ts";
import {
  deleteEntryAtSeq,
  deleteMalformedAtSeq,
  getEntryRowById,
  insertEntries,
  insertMalformed,
  type MalformedRow,
  maxSeq,
  type NewEntryRow,
  storedEntryIds,
  storedIdlessJson,
  storedMalformedRaw,
} from "../store/repos/entries.ts";
import { replaceEntryJson } from "../store/repos/entry-json.ts";
import {
  findSessionsByPath,
  insertSession,
  type SessionRow,
  sessionExists,
  updateSession,
} from "../store/repos/sessions.ts";
import { writeTransaction } from "../store/transactions.ts";
import { adoptAgentMigration, isAgentMigration } from "./agent-migration.ts";
import { emptyContentFacts } from "./entry-facts.ts";
import { entryTokens, isOmpEntry, isOmpHeader, toEntryRow } from "./entry-rows.ts";
import { markFrom, parseLineMarks, shiftAt } from "./file-lines.ts";
import { digestBytes } from "./files.ts";
import type { SessionSource } from "./import-source.ts";
import { type FileBytes, type FileFacts, fileState, malformedProblems } from "./import-state.ts";
import { type RowWorkerRun, rowBatches } from "./parallel-rows.ts";
import { refreshSessionStats, SessionStatsCollector } from "./stats.ts";

function headerColumns(source: SessionSource, omp: boolean, file: FileBytes) {
  const h = source.header;
  return {
    header_id: h.id,
    dialect: omp ? ("omp" as const) : ("pi" as const),
    original_version: source.originalVersion,
    header_json: source.headerJson,
    cwd: typeof h.cwd === "string" ? h.cwd : "",
    title: typeof h.title === "string" ? h.title : null,
    created: typeof h.timestamp === "string" ? h.timestamp : new Date(file.mtimeMs).toISOString(),
  };
}

/** A tool result whose output was pruned (SPEC §7: `prunedAt` set). */
function isPrunedToolResult(entry: SessionEntry): boolean {
  if (entry.type !== "message") return false;
  const message = entry.message as { role?: unknown; prunedAt?: unknown } | undefined;
  return message?.role === "toolResult" && message.prunedAt !== undefined && message.prunedAt !== null;
}

/** What a bundled demo session's id ends with: the header id stays free for the user's own file. */
const DEMO_ID_SUFFIX = "~demo";

/**
 * Header id when free, else a stable id derived from the path (a copy of another session's file).
 * A demo session is `<header id>~demo`: the demos are copies of real session files, and the user
 * who imports such a file (the fixtures, say) gets its header id as the session id.
 */
function chooseSessionId(db: Database, headerId: string, sourcePath: string, isDemo: boolean): string {
  const wanted = isDemo ? `${headerId}${DEMO_ID_SUFFIX}` : headerId;
  if (!sessionExists(db, wanted)) return wanted;
  const tag = createHash("sha256").update(sourcePath).digest("hex").slice(0, 8);
  let id = `${headerId}~${tag}`;
  for (let n = 2; sessionExists(db, id); n++) id = `${headerId}~${tag}-${n}`;
  return id;
}

export function newSession(
  db: Database,
  source: SessionSource,
  /** `hash` when the caller already hashed the file. */
  file: FileBytes & { hash?: string },
  isDemo: boolean,
  parsing: RowWorkerRun | null,
): ImportedFileReport {
  let id = "";
  const malformedSeen: MalformedLine[] = [];
  let added = 0;
  let problems: SessionProblem[] = [];
  let writingLine: number | null = null;
  // The rows are a new session's, keyed by construction: no foreign-key lookup per row.
  const stored = withoutForeignKeyChecks(db, () =>
    writeTransaction(db, (): SessionRow | null => {
      // Another import (the app's watcher, a CLI next to it) stored this file since it was read:
      // checked under the write lock, so one file never becomes two sessions.
      const already = findSessionsByPath(db, file.sourcePath).find((r) => r.header_id === source.header.id);
      if (already) return already;
      id = chooseSessionId(db, source.header.id, file.sourcePath, isDemo);
      const facts = emptyContentFacts(isOmpHeader(source.header));
      // The file's hashes come last (for a large file the import worker computes them as it parses).
      const sid = insertSession(db, {
        id,
        ...headerColumns(source, facts.omp, file),
        source_path: file.sourcePath,
        modified: new Date(file.mtimeMs).toISOString(),
        header_line: source.headerLine,
        is_demo: isDemo ? 1 : 0,
      });
      const stats = new SessionStatsCollector();
      let lastRowSeq: number | null = null;
      for (const { rows, malformed } of rowBatches(source, facts, parsing)) {
        const pks = insertEntries(db, sid, rows);
        for (let i = 0; i < rows.length; i++) stats.add(pks[i] as number, rows[i] as NewEntryRow);
        if (rows.length > 0) lastRowSeq = (rows[rows.length - 1] as NewEntryRow).seq;
        insertMalformed(
          db,
          sid,
          malformed.map((m) => ({ seq: m.line, raw: m.raw, error: m.error })),
        );
        for (const m of malformed) malformedSeen.push(m);
        added += rows.length;
      }
      const worker = parsing?.result ?? null;
      const state = fileState(file, worker?.digest ?? digestBytes(file.buffer, file.hash));
      const provisional = state.provisionalLine;
      writingLine = provisional;
      // The unterminated last line, if any, is the file's last line: the last row or malformed line.
      const hasProvisionalRow =
        provisional !== null && (lastRowSeq === provisional || malformedSeen.at(-1)?.line === provisional);
      // Everything the session has was just inserted: its figures come from memory, one update.
      const figures = stats.finish(malformedSeen.length, facts, worker?.treeInOrder);
      updateSession(db, id, {
        ...state.patch,
        // A header still being written cannot be re-read as a tail: force a full parse next time.
        ...(provisional === source.headerLine ? { imported_hash: null } : {}),
        ...figures.patch,
        provisional_seq: hasProvisionalRow ? provisional : null,
        ...(facts.omp ? { dialect: "omp" as const } : {}),
      });
      problems = figures.problems;
      return null;
    })(),
  );
  if (stored) {
    const none = { entriesAdded: 0, malformedLines: 0, problems: [] };
    return { path: file.path, sessionId: stored.id, status: "unchanged", ...none };
  }
  return {
    path: file.path,
    sessionId: id,
    status: "imported",
    entriesAdded: added,
    malformedLines: malformedSeen.length,
    problems: [...malformedProblems(malformedSeen, writingLine), ...problems],
  };
}

export interface MergeOptions {
  /** The stored prefix is intact (a v1/v2 file that grew): re-read its provisional last line. */
  grown: boolean;
  problems: SessionProblem[];
}

export function mergeSource(
  db: Database,
  row: SessionRow,
  source: SessionSource,
  file: FileFacts,
  options: MergeOptions,
): ImportedFileReport {
  const state = fileState(file, digestBytes(file.buffer, file.hash));
  let added = 0;
  const malformedAdded: MalformedLine[] = [];
  let problems: SessionProblem[] = [];
  let adopted = false;
  writeTransaction(db, () => {
    const { sid } = row;
    // A v1 file its agent migrated: the stored entries take the agent's ids first (SPEC §1.8).
    adopted = isAgentMigration(row, source) && adoptAgentMigration(db, row, source);
    let removed = 0;
    if (options.grown && row.provisional_seq !== null) {
      if (deleteEntryAtSeq(db, sid, row.provisional_seq)) removed++;
      deleteMalformedAtSeq(db, sid, row.provisional_seq);
    } else if (row.provisional_seq !== null) {
      // The file's last line was still being written (no newline yet) at the last import: as for an
      // append (import-tail.ts), it is read again from the file now — the rewrite holds it whole (or
      // still unfinished) — instead of staying a malformed line next to the whole one for good. A
      // provisional entry (valid JSON already) stays: it is merged by id like the others.
      deleteMalformedAtSeq(db, sid, row.provisional_seq);
    }
    const ids = storedEntryIds(db, sid);
    const idless = storedIdlessJson(db, sid);
    const raws = storedMalformedRaw(db, sid);
    let omp = row.dialect === "omp" || isOmpHeader(source.header);
    // New lines go after everything stored, in file order; a grown file keeps seq = line.
    let last = Math.max(maxSeq(db, sid), row.header_line);
    let provisionalSeq: number | null = null;
    let marks = parseLineMarks(row.line_marks);
    let marked = false;
    const agentPruned: { id: string; entry: SessionEntry; json: string }[] = [];
    const place = (line: number): number => {
      const seq = Math.max(line + row.line_shift, last + 1);
      last = seq;
      // A line placed further on than its number: problems still name the file's line.
      if (seq - line !== shiftAt(marks, seq)) {
        marks = markFrom(marks, seq, seq - line) ?? marks;
        marked = true;
      }
      if (line === state.provisionalLine) provisionalSeq = seq;
      return seq;
    };
    for (const chunk of source.chunks()) {
      type Item = {
        line: number;
        entry?: (typeof chunk.entries)[number];
        json?: string;
        malformed?: MalformedLine;
      };
      const items: Item[] = [];
      chunk.entries.forEach((e, i) => {
        if (!omp && isOmpEntry(e.entry)) omp = true;
        const entryId: unknown = e.entry.id;
        const json = typeof entryId === "string" ? undefined : chunk.jsonAt(i);
        const stored = json === undefined ? ids.has(entryId as string) : idless.has(json);
        if (!stored) items.push({ line: e.line, entry: e, json: json ?? chunk.jsonAt(i) });
        else if (json === undefined && isPrunedToolResult(e.entry)) {
          agentPruned.push({ id: entryId as string, entry: e.entry, json: chunk.jsonAt(i) });
        }
      });
      for (const m of chunk.malformed) if (!raws.has(m.raw)) items.push({ line: m.line, malformed: m });
      items.sort((a, b) => a.line - b.line);
      const rows: NewEntryRow[] = [];
      const malformed: MalformedRow[] = [];
      for (const item of items) {
        const seq = place(item.line);
        if (item.entry) rows.push(toEntryRow(item.entry.entry, seq, item.json as string, "file"));
        else if (item.malformed) {
          malformed.push({ seq, raw: item.malformed.raw, error: item.malformed.error });
          malformedAdded.push(item.malformed);
        }
      }
      insertEntries(db, sid, rows);
      insertMalformed(db, sid, malformed);
      added += rows.length;
    }
    // Tool outputs the agent pruned (SPEC §7, a full rewrite): the view shows what the agent now
    // sends, and the stored output is kept as the original (D9: `prune --restore` brings it back).
    for (const { id, entry, json } of agentPruned) {
      const stored = getEntryRowById(db, sid, id);
      if (stored?.origin !== "file" || isPrunedToolResult(JSON.parse(stored.json) as SessionEntry)) continue;
      replaceEntryJson(db, sid, id, json, entryTokens(entry));
    }
    updateSession(db, row.id, {
      ...headerColumns(source, omp, file),
      ...state.patch,
      ...(state.provisionalLine === source.headerLine ? { imported_hash: null } : {}),
      ...(marked ? { line_marks: JSON.stringify(marks) } : {}),
      provisional_seq: provisionalSeq,
    });
    added = Math.max(0, added - removed);
    problems = refreshSessionStats(db, row);
  })();
  return {
    path: file.path,
    sessionId: row.id,
    status: "updated",
    entriesAdded: added,
    malformedLines: malformedAdded.length,
    problems: [
      // Migrated by its agent, the file holds what is stored: not a rewrite that lost anything.
      ...options.problems.filter((p) => !adopted || p.kind !== "file_rewritten"),
      ...malformedProblems(malformedAdded, state.provisionalLine),
      ...problems,
    ],
  };
}
