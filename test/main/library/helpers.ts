/**
 * Library test helpers: a fresh database file in a temp folder, fixture copies, line-wise JSON
 * comparison of JSONL texts (blank lines are not content), and sessions compared across libraries.
 */
import fs from "node:fs";
import path from "node:path";
import { expect } from "vitest";
import { exportSession } from "../../../main/library/export.ts";
import { getSessionSummary } from "../../../main/library/load.ts";
import type { Database } from "../../../main/store/open.ts";
import { fixturePath } from "../../helpers/fixtures.ts";

export { type Library, makeLibrary } from "../store/helpers.ts";

/** Sessions `ids` are the same in both libraries: the same export and the same summary. */
export function expectSameSessions(a: Database, b: Database, ids: readonly string[]): void {
  for (const id of ids) {
    expect(exportSession(a, id).text).toEqual(exportSession(b, id).text);
    expect(getSessionSummary(a, id)).toEqual(getSessionSummary(b, id));
  }
}

/** Copies a fixture into `dir` (tests never modify the shared fixtures). */
export function copyFixture(name: string, dir: string, as = name): string {
  const target = path.join(dir, as);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.copyFileSync(fixturePath(name), target);
  return target;
}

export function jsonLines(text: string): unknown[] {
  return text
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as unknown);
}

export function nonBlankLines(text: string): string[] {
  return text.split("\n").filter((l) => l.trim() !== "");
}

export function fixtureNames(dir: string): string[] {
  return fs
    .readdirSync(dir)
    .filter((n) => n.endsWith(".jsonl"))
    .sort();
}
