/**
 * `canopy show <session>`: the tree text written to stdout in chunks as its lines are made (each
 * write awaited), from the session's outline rather than its whole detail (session:get parses
 * and holds every entry). The library is checked in place first, as every API call does.
 */
import { toApiError } from "../api/errors.ts";
import { loadSessionOutline, OUTLINE_TEXT_CHARS, type SessionOutline } from "../library/session-outline.ts";
import { assertLibraryInPlace } from "../store/library-identity.ts";
import { type CliContext, CommandError } from "./context.ts";
import { treeLines } from "./render-tree.ts";

/** Characters gathered before a write: few writes, and never the whole text in one string. */
export const SHOW_CHUNK_CHARS = 64 * 1024;

export async function showToOutput(cli: CliContext, sessionId: string): Promise<void> {
  const { ctx } = cli.api;
  const { io } = cli;
  let outline: SessionOutline;
  try {
    assertLibraryInPlace(ctx.db, ctx.libraryFile);
    // On a terminal as wide as that, a line may show more of its entry's text than 80 characters.
    outline = loadSessionOutline(ctx.db, sessionId, Math.max(OUTLINE_TEXT_CHARS, io.columns ?? 0));
  } catch (error) {
    throw new CommandError(toApiError(error).message);
  }
  // An output without `write` (a test's recorder) gets the text whole, in one `out`.
  if (!io.write) {
    io.out([...treeLines(outline, io.columns)].join("\n"));
    return;
  }
  // The same bytes as `out(text)`: each line and its break written together (a line ending in
  // "\r" stays one break on a terminal), and no break added when the text ends with one.
  let chunk = "";
  let count = 0;
  let last = "";
  for (const line of treeLines(outline, io.columns)) {
    if (chunk.length >= SHOW_CHUNK_CHARS) {
      await io.write(chunk);
      chunk = "";
    }
    chunk += `${line}\n`;
    count++;
    last = line;
  }
  const endsWithBreak = last.endsWith("\n") || (last === "" && count > 1);
  await io.write(endsWithBreak ? chunk.slice(0, -1) : chunk);
}
