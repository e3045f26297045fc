/**
 * Small helpers shared by the benchmarks: medians, throughput formatting, temp folders, the
 * fixture list, a library holding one session file (or a copy of the generated one), the line an
 * agent appends. Benchmarks print figures; they are not tests and never fail the build.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { importPath } from "../main/library/import.ts";
import { openDatabase } from "../main/store/open.ts";
import { defaultGeneratedPath, type GeneratedFile, writeGeneratedSession } from "./generate-session.ts";

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

export function fixturesDir(): string {
  return process.env.CANOPY_FIXTURES ?? path.resolve(repoRoot, "../shared/fixtures");
}

export function fixtureFiles(): string[] {
  const dir = fixturesDir();
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((n) => n.endsWith(".jsonl"))
    .sort()
    .map((n) => path.join(dir, n));
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

export function timeIt(fn: () => void): number {
  const started = performance.now();
  fn();
  return performance.now() - started;
}

/** How long `work` took, and what it returned. */
export function timed<T>(work: () => T): { ms: number; value: T } {
  const started = performance.now();
  const value = work();
  return { ms: performance.now() - started, value };
}

export function tempDir(prefix: string): { dir: string; cleanup(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  return { dir, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** Imports `sessionFile` into a new library at `dbFile` (closed again); returns the session's id. */
export function importIntoNewLibrary(dbFile: string, sessionFile: string): string {
  const setup = openDatabase(dbFile);
  const sessionId = importPath(setup, sessionFile).files[0]?.sessionId;
  setup.close();
  if (!sessionId) throw new Error(`${sessionFile} did not import`);
  return sessionId;
}

/** A new temp folder holding a copy of the generated session (`source`) and a library it is imported into. */
export interface GeneratedLibrary {
  generated: GeneratedFile;
  tmp: { dir: string; cleanup(): void };
  dbPath: string;
  source: string;
  sessionId: string;
}

/**
 * The generated session of `entries` (default 100k) copied to session.jsonl in a new temp folder
 * (`prefix`) and imported into library.db there; `tmp.cleanup()` removes both.
 */
export function generatedLibrary(prefix: string, entries?: number): GeneratedLibrary {
  const generated = writeGeneratedSession(defaultGeneratedPath(entries), entries);
  const tmp = tempDir(prefix);
  try {
    const dbPath = path.join(tmp.dir, "library.db");
    const source = path.join(tmp.dir, "session.jsonl");
    fs.copyFileSync(generated.file, source);
    return { generated, tmp, dbPath, source, sessionId: importIntoNewLibrary(dbPath, source) };
  } catch (error) {
    tmp.cleanup();
    throw error;
  }
}

/** One JSON line as the agent appends it: a user message ("follow-up <id>") under `parentId`, stamped now. */
export function userLine(id: string, parentId: string): string {
  const now = Date.now();
  return `${JSON.stringify({
    type: "message",
    id,
    parentId,
    timestamp: new Date(now).toISOString(),
    message: { role: "user", content: [{ type: "text", text: `follow-up ${id}` }], timestamp: now },
  })}\n`;
}

export const mbps = (bytes: number, ms: number): number => bytes / 1e6 / (ms / 1000);
export const perSecond = (count: number, ms: number): number => count / (ms / 1000);

export function fmt(n: number, digits = 0): string {
  return n.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** Prints rows as an aligned text table. */
export function printTable(header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join("  ");
  console.log(line(header));
  console.log(widths.map((w) => "-".repeat(w)).join("  "));
  for (const r of rows) console.log(line(r));
}

/** The number after `name` on the command line (`--runs 5`), or undefined when not given. */
export function numberArg(name: string): number | undefined {
  const at = process.argv.indexOf(name);
  return at > 0 ? Number(process.argv[at + 1]) : undefined;
}
