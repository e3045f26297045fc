/**
 * `--json` output of a list that may be longer than one string holds (`context --json`: an LLM
 * view of hundreds of MB): the text toJson(items, 2) gives, written to stdout piece by piece. An
 * item whose own JSON is too long fails in one line before anything is written.
 */
import { jsonArrayPieces } from "../../core/text/json-pieces.ts";
import { isTooLongError } from "../../core/text/too-long.ts";
import { CommandError, type CliIo } from "./context.ts";

/** Pieces gathered before a write: few writes, and never the whole text in one string. */
const WRITE_CHARS = 64 * 1024;

const LIMIT = "longer than the longest text JavaScript can hold (about 512 MB)";

/** Writes `items` as JSON; `what` names one item in the failure ("a message of the LLM view"). */
export async function writeJsonList(
  io: CliIo,
  items: readonly unknown[],
  what: string,
  instead: string,
): Promise<void> {
  let pieces: string[];
  try {
    pieces = jsonArrayPieces(items, 2);
  } catch (error) {
    if (isTooLongError(error)) throw new CommandError(`${what} is ${LIMIT} as JSON: ${instead}`);
    throw error;
  }
  // An output without `write` (a test's recorder) gets the text whole, in one `out`.
  if (!io.write) {
    io.out(pieces.join(""));
    return;
  }
  let chunk = "";
  for (const piece of pieces) {
    if (chunk.length > 0 && chunk.length + piece.length > WRITE_CHARS) {
      await io.write(chunk);
      chunk = "";
    }
    chunk += piece;
  }
  // As `out` ends the text: with a line break.
  await io.write(`${chunk}\n`);
}
