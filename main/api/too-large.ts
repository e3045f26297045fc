/**
 * The one-line failure when an answer is longer than one JavaScript string holds (~512 MB of
 * JSON, core/text/too-long.ts): what was too big and what to ask for instead, per channel. Every
 * transport that turns an answer into text (browser mode's HTTP, the desktop app's IPC) and the
 * dispatcher (a handler that built too long a text) answer with it instead of V8's bare error.
 */
import type { ApiError, ApiResult } from "../../core/api/dto.ts";
import { isTooLongError } from "../../core/text/too-long.ts";

const LIMIT = "longer than the longest text JavaScript can hold (about 512 MB)";

/** What to ask for instead, for the channels whose answers grow with a session. */
const INSTEAD: Record<string, string> = {
  "session:export":
    "export it to a file (outPath, the save dialog, or the CLI's --out), which is written as it is read",
  "session:get":
    "read its tree (session:tree) and its entries a few at a time (session:entries), as the app does",
  "session:entries": "ask for fewer entries at a time",
  "context:get":
    "ask without the agent's messages (agentMessages: false) or without blob images, or export the session to a file",
};

/** The failure of `channel` whose answer (or the text it builds) is too long for one string. */
export function tooLargeError(channel: string, input?: unknown): ApiError {
  const outPath = (input as { outPath?: unknown } | undefined)?.outPath;
  if (channel === "session:export" && typeof outPath === "string") {
    // Exports stream: only one line (an entry) can be that long. The file is replaced atomically.
    return {
      code: "too_large",
      message: `A line of the export (one entry) is ${LIMIT}: the export stopped and ${outPath} was not written (a file there is as it was); the session's source file holds the entry as the agent wrote it`,
    };
  }
  const what = channel === "session:export" ? "The export's text" : `The answer to ${channel}`;
  const instead = INSTEAD[channel] ?? "ask for less at a time";
  return { code: "too_large", message: `${what} is ${LIMIT}: ${instead}` };
}

/**
 * `encode(result)`, or where the answer's JSON is too long for one string, the encoded one-line
 * failure of `channel` instead (thrown out of a transport, V8's bare error would stop it).
 */
export function encodeOrTooLarge<T>(channel: string, result: ApiResult<unknown>, encode: (result: ApiResult<unknown>) => T): T {
  try {
    return encode(result);
  } catch (error) {
    if (!isTooLongError(error)) throw error;
    return encode({ ok: false, error: tooLargeError(channel) });
  }
}
