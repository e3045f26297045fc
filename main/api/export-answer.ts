/**
 * The JSON answer to a text export (`session:export` without outPath) without ever escaping or
 * holding the text on the serving thread in one piece: the export is spooled to a file by the
 * import runner (its thread in the app), then the answer — the same text as toJson of the
 * contract's answer — is made from that file one escaped 1 MB slice per turn of the event loop.
 * Browser mode writes the pieces as they come (server/export-json.ts); IPC joins them (ipc.ts).
 */
import fs from "node:fs";
import { once } from "node:events";
import type { ApiResult, ExportResult } from "../../core/api/dto.ts";
import { toJson } from "../../core/text/json-deep.ts";
import { newSpoolPath } from "../library/export-spool.ts";
import type { Api } from "./dispatch.ts";
import { toApiError } from "./errors.ts";

/** How much of the text is read and escaped per turn (a few milliseconds' work). */
const SLICE_CHARS = 1 << 20;

/** Whether this request is a text export (an object input without outPath). */
export function isTextExport(channel: string, input: unknown): input is Record<string, unknown> {
  return channel === "session:export" && typeof input === "object" && input !== null && !("outPath" in input);
}

/** What follows the text in `{"ok":true,"value":{"text":"…"…}}`: the closing quote and the other fields. */
function tailAfterText(rest: Omit<ExportResult, "text" | "path">): string {
  const fields = toJson(rest).slice(1, -1);
  return fields === "" ? '"}}' : `",${fields}}}`;
}

/**
 * The answer's JSON in pieces (a failure: one piece, the contract's answer). Throws only when the
 * spool cannot be read to its end, after some pieces: the answer must then not look whole.
 */
export async function* exportAnswerPieces(api: Api, input: Record<string, unknown>): AsyncGenerator<string> {
  // After removing the spools (and their writes' temp files) of a process that was killed.
  const spool = newSpoolPath(api.ctx);
  const result = (await api.callUnknown("session:export", {
    ...input,
    outPath: spool,
  })) as ApiResult<ExportResult>;
  if (!result.ok) {
    yield toJson(result);
    return;
  }
  const stream = fs.createReadStream(spool, { encoding: "utf8", highWaterMark: SLICE_CHARS });
  try {
    await once(stream, "open");
  } catch (error) {
    yield toJson({ ok: false, error: toApiError(error) });
    return;
  } finally {
    // Opened or not, the name goes: the open file is read to its end all the same.
    fs.rmSync(spool, { force: true });
  }
  const { path: _spool, text: _text, ...rest } = result.value;
  try {
    yield '{"ok":true,"value":{"text":"';
    // The decoder never splits a character across chunks, so each chunk escapes as in the whole.
    for await (const chunk of stream) yield JSON.stringify(chunk as string).slice(1, -1);
    yield tailAfterText(rest);
  } finally {
    stream.destroy();
  }
}
