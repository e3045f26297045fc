/**
 * Full-parse import paths: a session seen for the first time, and a known session whose file
 * was rewritten, moved, or (v1/v2 files) grew. Merging adds what is not stored yet and never
 * deletes anything already stored (D2: nothing is lost).
 */
import { createHash } from "node:crypto";
import type { ImportedFileReport, SessionProblem } from "../../core/api/dto.ts";
import type { SessionEntry, SessionHeader } from "../../core/session/entries.ts";
import type { MalformedLine, ParsedEntryLine, ParsedSessionFile } from "../../core/session/jsonl.ts";
import type { Database } from "../store/open.ts";
import {
  deleteEntryAtSeq,
  deleteMalformedAtSeq,
  insertEntries,
  insertMalformed,
  type MalformedRow,
  maxSeq,
  type NewEntryRow,
  storedEntryIds,
  storedIdlessJson,
  storedMalformedRaw,
} from "../store/repos/entries.ts";
import { insertSession, type SessionRow, sessionExists, updateSession } from "../store/repos/sessions.ts";
import { isOmpEntry, isOmpHeader, toEntryRow } from "./entry-rows.ts";
import { type FileFacts, fileState, lineReader, malformedProblems } from "./import-state.ts";
import { refreshSessionStats } from "./stats.ts";

export type { FileFacts } from "./import-state.ts";

type Parsed = ParsedSessionFile & { header: SessionHeader };

function headerColumns(parsed: Parsed, rawHeader: string, file: FileFacts) {
  const h = parsed.header;
  const omp = isOmpHeader(h) || parsed.entries.some((e) => isOmpEntry(e.entry));
  return {
    header_id: h.id,
    dialect: omp ? ("omp" as const) : ("pi" as const),
    original_version: parsed.originalVersion,
    header_json: parsed.migrated ? JSON.stringify(h) : rawHeader,
    cwd: typeof h.cwd === "string" ? h.cwd : "",
    title: typeof h.title === "string" ? h.title : null,
    created: typeof h.timestamp === "string" ? h.timestamp : new Date(file.mtimeMs).toISOString(),
  };
}

/** The entry's stored JSON: the original line for v3, the migrated object otherwise. */
function jsonOf(parsed: Parsed, raw: (line: number) => string, item: ParsedEntryLine): string {
  return parsed.migrated ? JSON.stringify(item.entry) : raw(item.line);
}

/** Header id when free, else a stable id derived from the path (a copy of another session's file). */
function chooseSessionId(db: Database, headerId: string, sourcePath: string): string {
  if (!sessionExists(db, headerId)) return headerId;
  const tag = createHash("sha256").update(sourcePath).digest("hex").slice(0, 8);
  let id = `${headerId}~${tag}`;
  for (let n = 2; sessionExists(db, id); n++) id = `${headerId}~${tag}-${n}`;
  return id;
}

export function newSession(
  db: Database,
  parsed: Parsed,
  text: string,
  file: FileFacts,
  isDemo: boolean,
): ImportedFileReport {
  const raw = lineReader(text, 1);
  const state = fileState(file);
  const id = chooseSessionId(db, parsed.header.id, file.sourcePath);
  const rows: NewEntryRow[] = parsed.entries.map((item) =>
    toEntryRow(item.entry, item.line, jsonOf(parsed, raw, item), "file"),
  );
  const malformed: MalformedRow[] = parsed.malformed.map((m) => ({
    seq: m.line,
    raw: m.raw,
    error: m.error,
  }));
  const headerLine = parsed.headerLine ?? 1;
  const provisional = state.provisionalLine;
  const hasProvisionalRow =
    provisional !== null &&
    (parsed.entries.some((e) => e.line === provisional) ||
      parsed.malformed.some((m) => m.line === provisional));
  let problems: SessionProblem[] = [];
  db.transaction(() => {
    insertSession(db, {
      id,
      ...headerColumns(parsed, raw(headerLine), file),
      ...state.patch,
      // A header still being written cannot be re-read as a tail: force a full parse next time.
      ...(provisional === headerLine ? { imported_hash: null } : {}),
      header_line: headerLine,
      provisional_seq: hasProvisionalRow ? provisional : null,
      is_demo: isDemo ? 1 : 0,
    });
    insertEntries(db, id, rows);
    insertMalformed(db, id, malformed);
    problems = refreshSessionStats(db, id);
  })();
  return {
    path: file.path,
    sessionId: id,
    status: "imported",
    entriesAdded: rows.length,
    malformedLines: malformed.length,
    problems: [...malformedProblems(parsed.malformed), ...problems],
  };
}

export interface MergeOptions {
  /** The stored prefix is intact (a v1/v2 file that grew): re-read its provisional last line. */
  grown: boolean;
  problems: SessionProblem[];
}

type Item = { line: number; entry: ParsedEntryLine } | { line: number; malformed: MalformedLine };

export function mergeParsed(
  db: Database,
  row: SessionRow,
  parsed: Parsed,
  text: string,
  file: FileFacts,
  options: MergeOptions,
): ImportedFileReport {
  const raw = lineReader(text, 1);
  const state = fileState(file);
  let added = 0;
  const malformedAdded: MalformedLine[] = [];
  let problems: SessionProblem[] = [];
  db.transaction(() => {
    let removed = 0;
    if (options.grown && row.provisional_seq !== null) {
      if (deleteEntryAtSeq(db, row.id, row.provisional_seq)) removed++;
      deleteMalformedAtSeq(db, row.id, row.provisional_seq);
    }
    const ids = storedEntryIds(db, row.id);
    const idless = storedIdlessJson(db, row.id);
    const raws = storedMalformedRaw(db, row.id);
    const items: Item[] = [
      ...parsed.entries
        .filter((e) => {
          const id: unknown = (e.entry as SessionEntry).id;
          return typeof id === "string" ? !ids.has(id) : !idless.has(jsonOf(parsed, raw, e));
        })
        .map((e) => ({ line: e.line, entry: e })),
      ...parsed.malformed.filter((m) => !raws.has(m.raw)).map((m) => ({ line: m.line, malformed: m })),
    ].sort((a, b) => a.line - b.line);

    // New lines go after everything stored, in file order; a grown file keeps seq = line.
    let last = Math.max(maxSeq(db, row.id), row.header_line);
    let provisionalSeq: number | null = null;
    const rows: NewEntryRow[] = [];
    const malformed: MalformedRow[] = [];
    for (const item of items) {
      const seq = Math.max(item.line + row.line_shift, last + 1);
      last = seq;
      if (item.line === state.provisionalLine) provisionalSeq = seq;
      if ("entry" in item)
        rows.push(toEntryRow(item.entry.entry, seq, jsonOf(parsed, raw, item.entry), "file"));
      else {
        malformed.push({ seq, raw: item.malformed.raw, error: item.malformed.error });
        malformedAdded.push(item.malformed);
      }
    }
    insertEntries(db, row.id, rows);
    insertMalformed(db, row.id, malformed);
    const columns = headerColumns(parsed, raw(parsed.headerLine ?? 1), file);
    updateSession(db, row.id, {
      ...columns,
      dialect: row.dialect === "omp" ? "omp" : columns.dialect,
      ...state.patch,
      ...(state.provisionalLine === parsed.headerLine ? { imported_hash: null } : {}),
      provisional_seq: provisionalSeq,
    });
    added = Math.max(0, rows.length - removed);
    problems = refreshSessionStats(db, row.id);
  })();
  return {
    path: file.path,
    sessionId: row.id,
    status: "updated",
    entriesAdded: added,
    malformedLines: malformedAdded.length,
    problems: [...options.problems, ...malformedProblems(malformedAdded), ...problems],
  };
}
