/**
 * `canopy export <session>` without --out: the JSONL text written to stdout chunk by chunk as
 * the rows are read, each write awaited (a slow reader slows the export, the text is never held
 * whole). The same checks as the `session:export` handler: the library still in place, the
 * live-source guard (a changed source is re-imported first); failures are the API's one line.
 */
import type { RequestInput } from "../../core/api/contract.ts";
import type { ExportResult } from "../../core/api/dto.ts";
import { toApiError } from "../api/errors.ts";
import { exportOptionsOf, exportSessionToStream, withReimported } from "../library/export.ts";
import { guardExport } from "../library/live-source.ts";
import { assertLibraryInPlace } from "../store/library-identity.ts";
import { type CliContext, CommandError } from "./context.ts";

export async function exportToOutput(
  cli: CliContext,
  input: RequestInput<"session:export">,
): Promise<ExportResult> {
  const { ctx } = cli.api;
  const { io } = cli;
  // An output without `write` (a test's recorder) gets the text whole, in one `out`.
  const parts: string[] = [];
  const write = io.write ? (chunk: string) => io.write?.(chunk) : (chunk: string) => void parts.push(chunk);
  let result: ExportResult;
  try {
    assertLibraryInPlace(ctx.db, ctx.libraryFile);
    const live = await guardExport(ctx, input.sessionId, undefined, input.confirmLiveFolder === true);
    result = withReimported(
      await exportSessionToStream(ctx.db, input.sessionId, write, exportOptionsOf(input)),
      live,
    );
  } catch (error) {
    throw new CommandError(toApiError(error).message);
  }
  if (!io.write) io.out(parts.join("").replace(/\n$/, ""));
  return result;
}
