/**
 * Handlers of the `session:` channels: a whole session or some of its entries, its tree (whole,
 * or what changed since the version a page has), the view leaf (D14), and export (after the
 * live-file guard: a changed source is re-imported first, agent files are never written).
 */
import { exportOptionsOf, withReimported } from "../../library/export.ts";
import { exportText } from "../../library/export-spool.ts";
import { guardExport } from "../../library/live-source.ts";
import { getSessionDetail, loadEntriesById, setViewLeaf } from "../../library/load.ts";
import { sessionTreeUpdate, versionedSessionTree } from "../../library/tree-versions.ts";
import { sessionUsage } from "../../library/usage.ts";
import type { AreaHandlers } from "../types.ts";
import { chooseExportPath } from "./export-path.ts";
import { expandPath } from "./library.ts";

export const sessionHandlers: AreaHandlers<"session"> = {
  "session:get": (input, ctx) => getSessionDetail(ctx.db, input.sessionId),
  "session:entries": (input, ctx) => loadEntriesById(ctx.db, input.sessionId, input.entryIds),
  "session:tree": (input, ctx) => versionedSessionTree(ctx.db, input.sessionId),
  "session:tree-update": (input, ctx) => sessionTreeUpdate(ctx.db, input.sessionId, input.since),
  "session:usage": (input, ctx) => sessionUsage(ctx.db, input.sessionId),
  "session:set-view-leaf": (input, ctx) => {
    const summary = setViewLeaf(ctx.db, input.sessionId, input.leafId);
    ctx.events.emit("session:changed", { sessionId: input.sessionId, viewLeafId: summary.viewLeafId });
    return summary;
  },
  "session:export": async (input, ctx) => {
    // A path typed in the export dialog as in the import form: ~/… is the home folder, and a
    // relative one is refused (it was written into the server's working folder, ~/x into a
    // folder named "~" there). The CLI sends its --out resolved.
    const outPath = input.outPath === undefined ? undefined : expandPath(input.outPath);
    const live = await guardExport(ctx, input.sessionId, outPath, input.confirmLiveFolder === true);
    const options = exportOptionsOf(input);
    // A long session is written by the import runner (its thread in the app): it takes seconds.
    const result =
      outPath === undefined
        ? await exportText(ctx, input.sessionId, options)
        : await ctx.imports.exportToFile({ sessionId: input.sessionId, outPath, options });
    return withReimported(result, live);
  },
  "session:choose-export-path": chooseExportPath,
};
