/**
 * Browser mode's JSON answer to a text export (`session:export` without outPath, the API's text
 * export): the pieces of api/export-answer.ts written as they come, with backpressure, so the
 * serving thread never holds or escapes the text whole.
 */
import type { ServerResponse } from "node:http";
import type { Api } from "../api/dispatch.ts";
import { exportAnswerPieces } from "../api/export-answer.ts";

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
  res.writeHead(200, { "content-type": "application/json" });
  try {
    for await (const piece of exportAnswerPieces(api, input)) {
      if (!(await write(res, piece))) return;
    }
    res.end();
  } catch {
    // The spool could not be read to its end: the answer is cut off, not left looking whole.
    res.destroy();
  }
}
