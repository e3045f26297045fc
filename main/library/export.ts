/**
 * Lossless JSONL export (D2, D14): the header, every entry and every malformed raw line at its
 * original position. With a chosen leaf, one invisible `custom` entry is appended as that
 * leaf's child, so an agent (whose leaf is the file's last line) resumes exactly there.
 */
import fs from "node:fs";
import path from "node:path";
import type { ExportResult } from "../../core/api/dto.ts";
import type { CustomEntry } from "../../core/session/entries.ts";
import { type IdGenerator, randomEntryId } from "../../core/session/ids.ts";
import { StoreError } from "../store/errors.ts";
import type { Database } from "../store/open.ts";
import { entryIdExists, listEntryRows, listMalformed, storedEntryIds } from "../store/repos/entries.ts";
import { requireSession } from "./load.ts";

/** `customType` of the resume marker; agents ignore custom entries when building context. */
export const RESUME_CUSTOM_TYPE = "canopy.resume";

export interface ExportOptions {
  /** Resume on this entry: appends the marker entry (D14). */
  leafId?: string;
  /** Write entries as first imported, before Canopy changed them (e.g. pruned outputs, D9). */
  originals?: boolean;
  now?: () => Date;
  generateId?: IdGenerator;
}

/** Builds the JSONL text; reads only, the database is not modified. */
export function exportSession(db: Database, sessionId: string, options: ExportOptions = {}): ExportResult {
  const row = requireSession(db, sessionId);
  const lines: { at: number; text: string }[] = [{ at: row.header_line, text: row.header_json }];
  for (const e of listEntryRows(db, row.sid)) {
    lines.push({ at: e.seq, text: options.originals && e.original_json !== null ? e.original_json : e.json });
  }
  for (const m of listMalformed(db, row.sid)) lines.push({ at: m.seq, text: m.raw });
  // Stable sort: equal positions cannot happen, but if they did the header stays first.
  lines.sort((a, b) => a.at - b.at);

  const out = lines.map((l) => l.text);
  let resumeEntryId: string | undefined;
  if (options.leafId !== undefined) {
    if (!entryIdExists(db, row.sid, options.leafId)) {
      throw new StoreError("not_found", `Session ${sessionId} has no entry ${options.leafId}`);
    }
    const used = storedEntryIds(db, row.sid);
    resumeEntryId = (options.generateId ?? randomEntryId)(used);
    const marker: CustomEntry = {
      type: "custom",
      id: resumeEntryId,
      parentId: options.leafId,
      timestamp: (options.now?.() ?? new Date()).toISOString(),
      customType: RESUME_CUSTOM_TYPE,
      data: { leafId: options.leafId },
    };
    out.push(JSON.stringify(marker));
  }
  const result: ExportResult = { text: `${out.join("\n")}\n`, lines: out.length };
  if (resumeEntryId !== undefined) result.resumeEntryId = resumeEntryId;
  return result;
}

/** Exports to `outPath` atomically (temp file in the same folder, then rename). */
export function exportSessionToFile(
  db: Database,
  sessionId: string,
  outPath: string,
  options: ExportOptions = {},
): ExportResult {
  const { text, ...rest } = exportSession(db, sessionId, options);
  const target = path.resolve(outPath);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  const temp = path.join(path.dirname(target), `.${path.basename(target)}.${process.pid}.${Date.now()}.tmp`);
  try {
    fs.writeFileSync(temp, text ?? "", { flush: true });
    fs.renameSync(temp, target);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw error;
  }
  return { ...rest, path: target };
}
