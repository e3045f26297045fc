/**
 * Browser mode's JSON answer to a `session:export` without an outPath (the API's text export):
 * the export is spooled to a file by the import runner (as the download is, export-download.ts),
 * then the answer — the same bytes as the contract's JSON answer — is written from that file one
 * escaped slice per turn of the event loop, so the serving thread never holds or escapes the text.
 */
import fs from "node:fs";
import type { ServerResponse } from "node:http";
import { once } from "node:events";
import type { ApiResult, ExportResult } from "../../core/api/dto.ts";
import { toJson } from "../../core/text/json-deep.ts";
import type { Api } from "../api/dispatch.ts";
import { toApiError } from "../api/errors.ts";
import { newSpoolPath } from "../library/export-spool.ts";

/** How much of the text is read, escaped and written per turn (a few milliseconds' work). */
const SLICE_CHARS = 1 << 20;

/** Whether this request is a text export this module answers (an object input without outPath). */
export function isTextExport(channel: string, input: unknown): input is Record<string, unknown> {
  return channel === "session:export" && typeof input === "object" && input !== null && !("outPath" in input);
}

/** What follows the text in `{"ok":true,"value":{"text":"…"…}}`: the closing quote and the other fields. */
function tailAfterText(rest: Omit<ExportResult, "text" | "path">): string {
  const fields = toJson(rest).slice(1, -1);
  return fields === "" ? '"}}' : `",${fields}}}`;
}

/** Writes `chunk`, waiting for the socket to take it when its buffer is full (false: the page went away). */
async function write(res: ServerResponse, chunk: string): Promise<boolean> {
  if (res.destroyed) return false;
  if (res.write(chunk)) return true;
  await new Promise<void>((resolve) => {
    const go = () => {
      res.off("drain", go);
      res.off("close", go);
      resolve();
    };
    res.on("drain", go);
    res.on("close", go);
  });
  return !res.destroyed;
}

/** Answers a text export as the contract's JSON, the text streamed from its spool file. */
export async function sendExportJson(
  api: Api,
  input: Record<string, unknown>,
  res: ServerResponse,
): Promise<void> {
  // After removing the spools (and their writes' temp files) of a server that was killed.
  const spool = newSpoolPath(api.ctx);
  const result = (await api.callUnknown("session:export", {
    ...input,
    outPath: spool,
  })) as ApiResult<ExportResult>;
  if (!result.ok) {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(toJson(result));
    return;
  }
  const stream = fs.createReadStream(spool, { encoding: "utf8", highWaterMark: SLICE_CHARS });
  try {
    await once(stream, "open");
  } catch (error) {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(toJson({ ok: false, error: toApiError(error) }));
    return;
  } finally {
    // Opened or not, the name goes: the open file is read to its end all the same.
    fs.rmSync(spool, { force: true });
  }
  const { path: _spool, text: _text, ...rest } = result.value;
  res.writeHead(200, { "content-type": "application/json" });
  try {
    if (!(await write(res, '{"ok":true,"value":{"text":"'))) return;
    // The decoder never splits a character across chunks, so each chunk escapes as in the whole.
    for await (const chunk of stream) {
      if (!(await write(res, JSON.stringify(chunk as string).slice(1, -1)))) return;
    }
    res.end(tailAfterText(rest));
  } catch {
    // The spool could not be read to its end: the answer is cut off, not left looking whole.
    res.destroy();
  } finally {
    stream.destroy();
  }
}
