/**
 * Exports spooled through a file: browser mode's download (server/export-download.ts) and the
 * whole text `session:export` answers without an output path (the desktop app's download). A long
 * session's text is written to the spool by the import runner (its thread in the app) and read
 * back asynchronously, so the serving thread never builds it; a short one is built here.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { ExportResult } from "../../core/api/dto.ts";
import type { AppContext } from "../api/types.ts";
import { type ExportRequestOptions, exportSession } from "./export.ts";
import { exportsInPlace, ThreadImports } from "./import-runner.ts";
import { removeStaleTempsIn, tempPathFor } from "./output-temp.ts";

/**
 * Where exports are spooled: a folder of their own next to the library (the system's temp folder
 * for a library in memory), each file named as an export's temp file (writer pid and host).
 */
export function spoolFolder(ctx: Pick<AppContext, "db" | "dataDir">): string {
  return path.join(ctx.db.memory ? fs.realpathSync(os.tmpdir()) : ctx.dataDir, "export-downloads");
}

/** A new spool file's path; the spools a killed process left in the folder are removed first. */
export function newSpoolPath(ctx: Pick<AppContext, "db" | "dataDir">): string {
  const folder = spoolFolder(ctx);
  removeStaleTempsIn(folder);
  return tempPathFor(path.join(folder, "download.jsonl"));
}

/**
 * A file's text, decoded a chunk per turn of the event loop (decoding 196 MB at once holds this
 * thread for seconds); the chunks are concatenated, which V8 does without copying them.
 */
async function readText(file: string): Promise<string> {
  let text = "";
  for await (const chunk of fs.createReadStream(file, { encoding: "utf8", highWaterMark: 1 << 20 })) {
    text += chunk as string;
  }
  return text;
}

/** The export as one text (exportSession's result), a long session's written off this thread. */
export async function exportText(
  ctx: AppContext,
  sessionId: string,
  options: ExportRequestOptions,
): Promise<ExportResult> {
  // Spooled only to leave this thread: the CLI's runner (in place) builds the text here.
  if (!(ctx.imports instanceof ThreadImports) || exportsInPlace(ctx.db, sessionId)) {
    return exportSession(ctx.db, sessionId, options);
  }
  const spool = newSpoolPath(ctx);
  try {
    const { path: _spool, ...result } = await ctx.imports.exportToFile({
      sessionId,
      outPath: spool,
      options,
    });
    return { text: await readText(spool), ...result };
  } finally {
    await fs.promises.rm(spool, { force: true });
  }
}
