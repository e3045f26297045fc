/**
 * Runs every benchmark in sequence (`npm run bench`). Prints figures only; nothing here can
 * fail the build. Generated inputs are cached in bench/out/.
 */
import { runAppendCostBench } from "./append-cost.bench.ts";
import { runBigTextBench } from "./big-text.bench.ts";
import { runCompactionBench } from "./compaction.bench.ts";
import { runContextBench } from "./context.bench.ts";
import { runExportStreamBench } from "./export-stream.bench.ts";
import { runExportThreadBench } from "./export-thread.bench.ts";
import { runImportBench } from "./import.bench.ts";
import { runLiveAppendBench } from "./live-append.bench.ts";
import { runLiveRewriteBench } from "./live-rewrite.bench.ts";
import { runOutsideChangesBench } from "./outside-changes.bench.ts";
import { runPrunePassBench } from "./prune-pass.bench.ts";
import { runPruneRestoreBench } from "./prune-restore.bench.ts";
import { runSearchIndexBench } from "./search-index.bench.ts";
import { runSessionGetBench } from "./session-get.bench.ts";
import { runSessionOpsBench } from "./session-ops.bench.ts";
import { runSessionUsageBench } from "./session-usage.bench.ts";
import { runShowBench } from "./show.bench.ts";
import { runTreeOpenBench } from "./tree-open.bench.ts";
import { runTreeRefreshBench } from "./tree-refresh.bench.ts";
import { runTreeRenderBench } from "./tree-render.bench.ts";

console.log("== import ==");
runImportBench();
console.log("\n== live re-import: one line appended to a 20 MB and a 196 MB session ==");
await runLiveAppendBench();
console.log("\n== live re-import: the 196 MB session rewritten before its end ==");
await runLiveRewriteBench();
console.log("\n== context ==");
runContextBench();
console.log("\n== session operations on the 100k session ==");
await runSessionOpsBench();
console.log("\n== session:get of the 100k session over HTTP: one JSON string against pieces ==");
await runSessionGetBench();
console.log("\n== session:usage of the 100k session: the stored usage rows against every reply's JSON ==");
await runSessionUsageBench({ runs: 3 });
console.log("\n== canopy show, chat's read and the label read on the 100k session, against the old routes ==");
await runShowBench({ runs: 2 });
console.log("\n== one append by Canopy on the 100k session, against the old path ==");
await runAppendCostBench();
console.log("\n== the first and a second prune of the 100k session, against the previous route ==");
runPrunePassBench({ runs: 1 });
console.log("\n== restoring the pruned outputs of the 100k session, against the previous route ==");
runPruneRestoreBench({ runs: 1 });
console.log("\n== the first search after a large import ==");
await runSearchIndexBench({ runs: 1 });
console.log("\n== following other programs' writes (idle 100k-entry library) ==");
await runOutsideChangesBench();
console.log("\n== export of the 100k session: the old route (one string) against the streamed one ==");
await runExportStreamBench();
console.log("\n== export of the 100k session: how long the serving thread is held up, before and now ==");
await runExportThreadBench();
console.log("\n== compaction planning ==");
runCompactionBench();
console.log("\n== tree rendering in Chromium (10,000 entries, with React Flow's default as baseline) ==");
try {
  await runTreeRenderBench();
} catch (error) {
  console.log(`tree rendering bench skipped: ${(error as Error).message}`);
}
console.log("\n== opening a 25k and a 100k-entry session's tree (main side against the old route; Chromium) ==");
try {
  await runTreeOpenBench();
} catch (error) {
  console.log(`tree open bench skipped: ${(error as Error).message}`);
}
console.log("\n== refreshing the open 100k-entry session after one append: whole tree against delta ==");
try {
  await runTreeRefreshBench();
} catch (error) {
  console.log(`tree refresh bench skipped: ${(error as Error).message}`);
}
console.log("\n== opening a session with one huge text in Chromium (click → tree and LLM view, ms) ==");
try {
  await runBigTextBench(false);
} catch (error) {
  console.log(`big text bench skipped: ${(error as Error).message}`);
}
