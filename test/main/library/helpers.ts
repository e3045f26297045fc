/**
 * Library test helpers: a fresh database file in a temp folder, fixture copies, and line-wise
 * JSON comparison of JSONL texts (blank lines are not content).
 */
import fs from "node:fs";
import path from "node:path";
import { fixturePath } from "../../helpers/fixtures.ts";

export { type Library, makeLibrary } from "../store/helpers.ts";

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
