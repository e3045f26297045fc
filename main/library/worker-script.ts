/**
 * Where a worker thread's script is: next to the module that starts it, the .ts source when
 * Canopy runs from its sources, the bundled .js in a build (scripts/build.ts bundles each
 * worker next to main.js).
 */
import { fileURLToPath } from "node:url";

/** The path of worker `name` (no extension) beside the module at `moduleUrl` (its import.meta.url). */
export function workerScriptPath(moduleUrl: string, name: string): string {
  return fileURLToPath(new URL(`./${name}${moduleUrl.endsWith(".ts") ? ".ts" : ".js"}`, moduleUrl));
}
