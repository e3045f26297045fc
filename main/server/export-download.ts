/**
 * Browser mode's export download: the export is written to a spool file in the library's folder
 * (through the contract with that file as its `outPath`, so with every check and the streamed
 * write of output-file.ts), then sent from that file with backpressure and removed. The page gets
 * the exact length and the result header before the first byte and an error as the contract's
 * JSON answer; the server never holds the text (a 196 MB session was one string, then a buffer).
 * Spool files a killed server left behind are removed by the next download (output-temp.ts).
 */
import fs from "node:fs";
import type { ServerResponse } from "node:http";
import { pipeline } from "node:stream/promises";
import { EXPORT_FILE_TYPE, EXPORT_RESULT_HEADER } from "../../core/api/contract.ts";
import type { ApiResult, ExportResult } from "../../core/api/dto.ts";
import type { Api } from "../api/dispatch.ts";
import { newSpoolPath } from "../library/export-spool.ts";
import { toJson } from "../../core/text/json-deep.ts";

function sendJson(res: ServerResponse, result: ApiResult<unknown>): void {
  res.writeHead(200, { "content-type": "application/json" });
  res.end(toJson(result));
}

/**
 * Answers a `session:export` asked for as the file itself (EXPORT_FILE_TYPE). An input with its
 * own `outPath` is written there, and answered with the header and no body, as before.
 */
export async function sendExportDownload(api: Api, input: unknown, res: ServerResponse): Promise<void> {
  if (typeof input !== "object" || input === null || "outPath" in input) {
    const result = await api.callUnknown("session:export", input);
    if (!result.ok) return sendJson(res, result);
    const { text = "", ...rest } = result.value as ExportResult;
    res.writeHead(200, {
      "content-type": EXPORT_FILE_TYPE,
      "content-length": Buffer.byteLength(text),
      [EXPORT_RESULT_HEADER]: encodeURIComponent(toJson(rest)),
    });
    res.end(text);
    return;
  }
  // After removing the spools (and their writes' temp files) of a server that was killed.
  const spool = newSpoolPath(api.ctx);
  const result = await api.callUnknown("session:export", { ...input, outPath: spool });
  if (!result.ok) return sendJson(res, result);
  let fd: number;
  try {
    fd = fs.openSync(spool, "r");
  } finally {
    // Open or not, the name goes: the open file is read to its end all the same.
    fs.rmSync(spool, { force: true });
  }
  const { path: _spool, text: _text, ...rest } = result.value as ExportResult;
  res.writeHead(200, {
    "content-type": EXPORT_FILE_TYPE,
    "content-length": fs.fstatSync(fd).size,
    [EXPORT_RESULT_HEADER]: encodeURIComponent(toJson(rest)),
  });
  try {
    await pipeline(fs.createReadStream("", { fd }), res);
  } catch {
    // The page went away (or the read failed): the stream is closed, the response ended.
    res.destroy();
  }
}
