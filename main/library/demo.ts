/**
 * Seeds the bundled demo sessions into a brand-new library, once: a new user sees real trees
 * with branches and compactions before importing anything. A library that already holds
 * sessions, or was seeded before (even if the user deleted the demos), is left alone.
 */
import { existsSync } from "node:fs";
import type { Database } from "../store/open.ts";
import { listSessionRows } from "../store/repos/sessions.ts";
import { getSetting, setSetting } from "../store/repos/settings.ts";
import { importPath } from "./import.ts";

const SEEDED_KEY = "demo.seeded";

export function seedDemoSessions(db: Database, demoDir: string): void {
  if (getSetting(db, SEEDED_KEY) === true) return;
  if (listSessionRows(db).length === 0 && existsSync(demoDir)) {
    const report = importPath(db, demoDir, { isDemo: true });
    if (report.failed > 0) {
      const reasons = report.files
        .filter((file) => file.reason)
        .map((file) => `${file.path}: ${file.reason}`);
      console.error(`canopy: some demo sessions could not be imported: ${reasons.join("; ")}`);
    }
  }
  setSetting(db, SEEDED_KEY, true);
}
