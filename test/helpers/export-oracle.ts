/**
 * The export as it was before it streamed (de06b9f): every row read at once, the lines sorted by
 * position and joined into one string. The tests hold the streamed export to it byte for byte.
 */
import type { ExportResult } from "../../core/api/dto.ts";
import type { CustomEntry, SessionInfoEntry } from "../../core/session/entries.ts";
import { randomEntryId } from "../../core/session/ids.ts";
import { archivedEntryIds } from "../../main/library/edits.ts";
import type { ExportOptions } from "../../main/library/export.ts";
import { archivedCut } from "../../main/library/export-archived.ts";
import { RESUME_CUSTOM_TYPE } from "../../main/library/export-lines.ts";
import { requireSession } from "../../main/library/load.ts";
import { StoreError } from "../../main/store/errors.ts";
import type { Database } from "../../main/store/open.ts";
import {
  entryIdExists,
  listEntryRows,
  listMalformed,
  storedEntryIds,
} from "../../main/store/repos/entries.ts";

/** The whole JSONL text, built as the export did before it streamed. */
export function oldExportSession(db: Database, sessionId: string, options: ExportOptions = {}): ExportResult {
  const row = requireSession(db, sessionId);
  const archived = options.withoutArchived ? archivedEntryIds(db, sessionId) : new Set<string>();
  const headerText =
    row.canopy_title !== null && row.dialect === "omp"
      ? JSON.stringify({
          ...(JSON.parse(row.header_json) as Record<string, unknown>),
          title: row.canopy_title,
        })
      : row.header_json;
  const lines: { at: number; text: string }[] = [{ at: row.header_line, text: headerText }];
  let lastEntry: { at: number; id: string; type: string } | null = null;
  const rows = listEntryRows(db, row.sid);
  const { omit, moved } = archivedCut(rows, archived);
  for (const e of rows) {
    if (e.id !== null && omit.has(e.id)) continue;
    let text = options.originals && e.original_json !== null ? e.original_json : e.json;
    if (e.id !== null && moved.has(e.id)) {
      text = JSON.stringify({ ...(JSON.parse(text) as Record<string, unknown>), parentId: moved.get(e.id) });
    }
    lines.push({ at: e.seq, text });
    if (e.id !== null && (lastEntry === null || e.seq > lastEntry.at)) lastEntry = { at: e.seq, id: e.id, type: e.type };
  }
  for (const m of listMalformed(db, row.sid)) lines.push({ at: m.seq, text: m.raw });
  // Stable sort: equal positions cannot happen, but if they did the header stays first.
  lines.sort((a, b) => a.at - b.at);

  const out = lines.map((l) => l.text);
  const used = storedEntryIds(db, row.sid);
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
      parentId: lastEntry?.id ?? null,
      timestamp: now,
      name: row.canopy_title,
    };
    out.push(JSON.stringify(info));
  }
  let resumeEntryId: string | undefined;
  if (options.leafId !== undefined) {
    if (options.leafId !== null && !entryIdExists(db, row.sid, options.leafId)) {
      throw new StoreError("not_found", `Session ${sessionId} has no entry ${options.leafId}`);
    }
    if (options.leafId !== null && archived.has(options.leafId)) {
      throw new StoreError("invalid_input", `Entry ${options.leafId} is archived; it is not in this export`);
    }
  }
  // No marker below a compaction written last (the agents resume there as it is).
  const resumesAsItIs = options.leafId === lastEntry?.id && lastEntry?.type === "compaction";
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
    out.push(JSON.stringify(marker));
  }
  const result: ExportResult = { text: `${out.join("\n")}\n`, lines: out.length };
  if (resumeEntryId !== undefined) result.resumeEntryId = resumeEntryId;
  return result;
}
