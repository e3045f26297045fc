/**
 * `session:choose-export-path`: the desktop app's save dialog for an export, so that the page
 * exports with an `outPath` (written by main, streamed) instead of carrying the text over IPC.
 * Browser mode and the CLI have no dialog: "unsupported" (they download or take a path).
 */
import type { RequestInput, RequestOutput } from "../../../core/api/contract.ts";
import { suggestedExportName } from "../../library/export.ts";
import { ApiFailure } from "../errors.ts";
import type { AppContext } from "../types.ts";

export async function chooseExportPath(
  input: RequestInput<"session:choose-export-path">,
  ctx: AppContext,
): Promise<RequestOutput<"session:choose-export-path">> {
  // An unknown session is "not_found" before any dialog opens.
  const suggested = suggestedExportName(ctx.db, input.sessionId);
  if (ctx.saveDialog === null) {
    throw new ApiFailure("unsupported", "Only the desktop app has a save dialog: give a path to save to.");
  }
  return { path: await ctx.saveDialog(suggested) };
}
