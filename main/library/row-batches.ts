/**
 * Parsed chunks of a session file → database rows, with the content facts the session figures
 * need. Pure (no database), so the same code runs on the main thread and in the import worker.
 */
import type { SessionEntry } from "../../core/session/entries.ts";
import type { MalformedLine } from "../../core/session/jsonl.ts";
import type { NewEntryRow } from "../store/repos/entries.ts";
import { type ContentFacts, observeEntry } from "./entry-facts.ts";
import { toEntryRow } from "./entry-rows.ts";
import type { Chunk } from "./import-source.ts";

export interface RowBatch {
  /** File entries in line order; `seq` is the line number. */
  rows: NewEntryRow[];
  malformed: MalformedLine[];
}

/** The row of a file entry at `line` (seq = line); updates `facts` with what the entry says. */
export function observedRow(
  entry: SessionEntry,
  line: number,
  json: string | Uint8Array,
  facts: ContentFacts,
): NewEntryRow {
  const row = toEntryRow(entry, line, json, "file");
  observeEntry(facts, entry, row.role);
  return row;
}

/** The rows of one chunk (seq = line); updates `facts` with what the entries say. */
export function chunkRows(chunk: Chunk, facts: ContentFacts): RowBatch {
  const rows: NewEntryRow[] = new Array(chunk.entries.length);
  for (let i = 0; i < rows.length; i++) {
    const { entry, line } = chunk.entries[i] as Chunk["entries"][number];
    rows[i] = observedRow(entry, line, chunk.storedJsonAt(i), facts);
  }
  return { rows, malformed: chunk.malformed };
}
