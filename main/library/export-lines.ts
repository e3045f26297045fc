/**
 * The lines of a lossless JSONL export (D2, D14), produced as the library's rows are read: the
 * header, every entry and every malformed raw line at its original position, then the pi rename
 * entry and the resume marker (none below a compaction written last). Handed out in chunks of whole lines of about CHUNK_CHARS, so a
 * writer holds one chunk at a time, never the session's text (a 196 MB session is not a 196 MB
 * string). export.ts says what the lines are; this module only reads and orders them.
 */
import type { ExportResult } from "../../core/api/dto.ts";
import type { CustomEntry, SessionInfoEntry } from "../../core/session/entries.ts";
import { type IdGenerator, randomEntryId } from "../../core/session/ids.ts";
import { StoreError } from "../store/errors.ts";
import type { Database } from "../store/open.ts";
import { entryIdExists, StoredEntryIds } from "../store/repos/entries.ts";
import { iterateEntries, iterateMalformed } from "../store/repos/entry-stream.ts";
import type { MalformedRow } from "../store/repos/entries.ts";
import type { SessionRow } from "../store/repos/sessions.ts";
import { archivedEntryIds } from "./edits.ts";
import { type ArchivedCut, archivedCut } from "./export-archived.ts";
import { requireSession } from "./load.ts";
import { toJson } from "../../core/text/json-deep.ts";

/** Characters gathered before a chunk is handed out (a longer line is a chunk of its own). */
export const CHUNK_CHARS = 1 << 20;

/** `customType` of the resume marker; agents ignore custom entries when building context. */
export const RESUME_CUSTOM_TYPE = "canopy.resume";

export interface ExportOptions {
  /** Resume on this entry: appends the marker entry (D14); null: on none (the marker is a root). */
  leafId?: string | null;
  /** Write entries as first imported, before Canopy changed them (e.g. pruned outputs, D9). */
  originals?: boolean;
  /** Leave archived subtrees (and labels of their entries) out. */
  withoutArchived?: boolean;
  now?: () => Date;
  generateId?: IdGenerator;
}

/** The export's text in chunks of whole lines (each ends with "\n"); returns the result. */
export type ExportChunks = Generator<string, ExportResult, undefined>;

/** The session's row and its archived entries as an export sees them; throws what it cannot export. */
function exportable(
  db: Database,
  sessionId: string,
  options: ExportOptions,
): { row: SessionRow; archived: Set<string> } {
  const row = requireSession(db, sessionId);
  const archived = options.withoutArchived ? archivedEntryIds(db, sessionId) : new Set<string>();
  if (options.leafId !== undefined && options.leafId !== null) {
    if (!entryIdExists(db, row.sid, options.leafId)) {
      throw new StoreError("not_found", `Session ${sessionId} has no entry ${options.leafId}`);
    }
    if (archived.has(options.leafId)) {
      throw new StoreError("invalid_input", `Entry ${options.leafId} is archived; it is not in this export`);
    }
  }
  return { row, archived };
}

/**
 * Checks what can fail (the session, the chosen leaf) before the first line, then returns the
 * chunks. Reads only. The chunks are read from one snapshot of the library, taken at the first
 * chunk (the checks are made again in it): another connection's write meanwhile (the export runs
 * on the import runner's thread) is either wholly in the export or not at all. While the chunks
 * are being taken the connection cannot write: take them all (or `return()` the generator) first.
 */
export function exportChunks(db: Database, sessionId: string, options: ExportOptions = {}): ExportChunks {
  const { row } = exportable(db, sessionId, options);
  return lines(db, row.sid, sessionId, options);
}

function headerText(row: SessionRow): string {
  return row.canopy_title !== null && row.dialect === "omp"
    ? toJson({ ...(JSON.parse(row.header_json) as Record<string, unknown>), title: row.canopy_title })
    : row.header_json;
}

function* lines(db: Database, sid: number, sessionId: string, options: ExportOptions): ExportChunks {
  let pending: string[] = [];
  let size = 0;
  let count = 0;
  let lastEntryId: string | null = null;
  let lastEntryType: string | null = null;
  const entries = iterateEntries(db, sid, { originals: options.originals === true });
  // The snapshot begins with this read; the rest below reads it while `entries` is open.
  let entry = entries.next();
  let malformed: IterableIterator<MalformedRow> | null = null;
  let row: SessionRow;
  try {
    let archived: Set<string>;
    ({ row, archived } = exportable(db, sessionId, options));
    // The cut needs every entry's place in the tree and the labels' targets, not their text.
    const { omit, moved }: ArchivedCut =
      archived.size === 0
        ? { omit: new Set<string>(), moved: new Map<string, string | null>() }
        : archivedCut([...iterateEntries(db, sid, { jsonOf: (type) => type === "label" })], archived);
    malformed = iterateMalformed(db, sid);
    let bad = malformed.next();
    let headerDone = false;
    // A merge by position of the header, the entries and the malformed lines (each in order); on
    // equal positions, which cannot happen, the header comes first and entries before raw lines.
    for (;;) {
      let text: string;
      if (
        !headerDone &&
        (entry.done === true || row.header_line <= entry.value.seq) &&
        (bad.done === true || row.header_line <= bad.value.seq)
      ) {
        text = headerText(row);
        headerDone = true;
      } else if (entry.done !== true && (bad.done === true || entry.value.seq <= bad.value.seq)) {
        const e = entry.value;
        entry = entries.next();
        if (e.id !== null && omit.has(e.id)) continue;
        text = e.json;
        if (e.id !== null && moved.has(e.id)) {
          text = toJson({
            ...(JSON.parse(text) as Record<string, unknown>),
            parentId: moved.get(e.id),
          });
        }
        if (e.id !== null) {
          lastEntryId = e.id;
          lastEntryType = e.type;
        }
      } else if (bad.done !== true) {
        text = bad.value.raw;
        bad = malformed.next();
      } else break;
      pending.push(text);
      size += text.length + 1;
      count++;
      if (size >= CHUNK_CHARS) {
        yield `${pending.join("\n")}\n`;
        pending = [];
        size = 0;
      }
    }
  } finally {
    entries.return();
    malformed?.return?.();
  }

  const used = new StoredEntryIds(db, sid);
  const newId = () => {
    const id = (options.generateId ?? randomEntryId)(used);
    used.add(id);
    return id;
  };
  const now = (options.now?.() ?? new Date()).toISOString();
  if (row.canopy_title !== null && row.dialect === "pi") {
    // pi keeps the display name in a session_info entry; below the last entry, the agent's
    // resume path is unchanged (session_info never reaches the model).
    const info: SessionInfoEntry = {
      type: "session_info",
      id: newId(),
      parentId: lastEntryId,
      timestamp: now,
      name: row.canopy_title,
    };
    pending.push(toJson(info));
    count++;
  }
  let resumeEntryId: string | undefined;
  // A compaction written last is where the agents resume as it is: no marker below it. One there
  // would make an agent compact again at once (its check before the first prompt, on the kept
  // reply's pre-compaction usage) with nothing new, keeping from the marker and dropping every
  // message the compaction kept (SPEC §5.3 E9, behaviour 40); ending in it, "already compacted".
  const resumesAsItIs = options.leafId === lastEntryId && lastEntryType === "compaction";
  if (options.leafId !== undefined && !resumesAsItIs) {
    resumeEntryId = newId();
    const marker: CustomEntry = {
      type: "custom",
      id: resumeEntryId,
      parentId: options.leafId,
      timestamp: now,
      customType: RESUME_CUSTOM_TYPE,
      data: { leafId: options.leafId },
    };
    pending.push(toJson(marker));
    count++;
  }
  if (pending.length > 0) yield `${pending.join("\n")}\n`;
  const result: ExportResult = { lines: count };
  if (resumeEntryId !== undefined) result.resumeEntryId = resumeEntryId;
  return result;
}

/** Hands every chunk to `write` in turn; the result. The generator is closed if `write` throws. */
export function writeChunks(chunks: ExportChunks, write: (chunk: string) => void): ExportResult {
  try {
    for (let step = chunks.next(); ; step = chunks.next()) {
      if (step.done === true) return step.value;
      write(step.value);
    }
  } catch (error) {
    chunks.return({ lines: 0 });
    throw error;
  }
}

/** As writeChunks, waiting for each `write` (a stream's backpressure) before the next chunk. */
export async function writeChunksAsync(
  chunks: ExportChunks,
  write: (chunk: string) => Promise<void> | void,
): Promise<ExportResult> {
  try {
    for (let step = chunks.next(); ; step = chunks.next()) {
      if (step.done === true) return step.value;
      await write(step.value);
    }
  } catch (error) {
    chunks.return({ lines: 0 });
    throw error;
  }
}
