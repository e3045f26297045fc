/**
 * Runs every benchmark in sequence (`npm run bench`). Prints figures only; nothing here can
 * fail the build. Generated inputs are cached in bench/out/.
 */
import { runCompactionBench } from "./compaction.bench.ts";
import { runContextBench } from "./context.bench.ts";
import { runImportBench } from "./import.bench.ts";

console.log("== import ==");
runImportBench();
console.log("\n== context ==");
runContextBench();
console.log("\n== compaction planning ==");
runCompactionBench();
