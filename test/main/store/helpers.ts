/**
 * Temp-folder databases for store and library tests: a real SQLite file per test, removed
 * afterwards, so WAL and re-open behaviour are exercised as in the app.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export function makeTempDir(prefix = "canopy-test-"): { dir: string; cleanup(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  return { dir, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}
