/**
 * Import throughput (MB/s, entries/s) on every fixture and on a generated 100,000-entry session,
 * against plain JSON.parse of the same lines measured in the same run. Target: import at
 * ≥ 1/3 of the baseline. importPath leaves the WAL checkpoint for later (idle); it is timed on
 * its own and also shown added to the import. Run: node bench/import.bench.ts [--runs N] [--skip-generated]
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { importPath, READ_AHEAD_MIN_BYTES, READ_AHEAD_START_BYTES } from "../main/library/import.ts";
import {
  IDLE_THREAD_MS,
  importThreadStats,
  PARALLEL_PARSE_MIN_BYTES,
} from "../main/library/parallel-rows.ts";
import { indexPendingSearchText } from "../main/library/search.ts";
import { checkpointWal, openDatabase } from "../main/store/open.ts";
import {
  fixtureFiles,
  fixturesDir,
  fmt,
  mbps,
  median,
  perSecond,
  printTable,
  tempDir,
  timeIt,
} from "./bench-utils.ts";
import { defaultGeneratedPath, writeGeneratedFolder, writeGeneratedSession } from "./generate-session.ts";
import { measureBareSqliteFloor, measureStoreFloor } from "./store-floor.ts";

const IDLE_THREAD_SECONDS = IDLE_THREAD_MS / 1000;

export interface ImportFigures {
  file: string;
  bytes: number;
  entries: number;
  /** JSON.parse of every line of text already in memory. */
  parseMs: number;
  /** readFileSync + split + JSON.parse: the least a loader does. */
  readParseMs: number;
  /** importPath into a fresh database (read, hash, parse, store, commit). */
  importMs: number;
  /** The WAL checkpoint importPath leaves for later (run when idle), timed on its own. */
  checkpointMs: number;
  /** Tokenizing the imported entries into the search index afterwards. */
  searchIndexMs: number;
  /** Lowest and highest ratio vs parse of one run (its import against the baseline right after it). */
  ratioRange: [number, number];
  /** The first run's import, its ratio, and whether it started the import thread (large files). */
  first: { importMs: number; ratio: number; startedThread: boolean };
  /** Files the import thread parsed per import (0: every file was parsed in place). */
  threadFiles: number;
}

/** The session files at `target` (a file, or every *.jsonl directly in a folder). */
function filesAt(target: string): string[] {
  if (!fs.statSync(target).isDirectory()) return [target];
  return fs
    .readdirSync(target)
    .filter((n) => n.endsWith(".jsonl"))
    .map((n) => path.join(target, n));
}

function baseline(target: string): { parseMs: number; readParseMs: number; entries: number } {
  const files = filesAt(target);
  const readParseMs = timeIt(() => {
    for (const file of files) {
      const text = fs.readFileSync(file, "utf8");
      for (const line of text.split("\n")) if (line.trim() !== "") JSON.parse(line);
    }
  });
  const perFile = files.map((file) =>
    fs
      .readFileSync(file, "utf8")
      .split("\n")
      .filter((l) => l.trim() !== ""),
  );
  const parseMs = timeIt(() => {
    for (const lines of perFile) for (const line of lines) JSON.parse(line);
  });
  // Entries, not headers.
  const entries = perFile.reduce((sum, lines) => sum + lines.length - 1, 0);
  return { parseMs, readParseMs, entries };
}

function importOnce(file: string): { importMs: number; checkpointMs: number; searchIndexMs: number } {
  const tmp = tempDir("canopy-bench-");
  try {
    const db = openDatabase(path.join(tmp.dir, "library.db"));
    let failed = 0;
    const importMs = timeIt(() => {
      failed = importPath(db, file).failed;
    });
    if (failed > 0) throw new Error(`import of ${file} failed`);
    const checkpointMs = timeIt(() => checkpointWal(db));
    const searchIndexMs = timeIt(() => indexPendingSearchText(db));
    db.close();
    return { importMs, checkpointMs, searchIndexMs };
  } finally {
    tmp.cleanup();
  }
}

export function measureImport(file: string, runs: number): ImportFigures {
  const parse: number[] = [];
  const readParse: number[] = [];
  const imports: number[] = [];
  const checkpoints: number[] = [];
  const search: number[] = [];
  let entries = 0;
  let startedThread = false;
  let threadFiles = 0;
  for (let i = 0; i < runs; i++) {
    // The import goes first: the baseline leaves the whole file's lines as garbage, and the
    // collection of that heap would otherwise land in the next import's time.
    const threads = importThreadStats();
    const r = importOnce(file);
    const after = importThreadStats();
    if (i === 0) startedThread = after.started > threads.started;
    threadFiles = after.files - threads.files;
    imports.push(r.importMs);
    checkpoints.push(r.checkpointMs);
    search.push(r.searchIndexMs);
    const b = baseline(file);
    entries = b.entries;
    parse.push(b.parseMs);
    readParse.push(b.readParseMs);
  }
  const ratios = imports.map((ms, i) => (parse[i] as number) / ms);
  return {
    file,
    bytes: filesAt(file).reduce((sum, f) => sum + fs.statSync(f).size, 0),
    entries,
    parseMs: median(parse),
    readParseMs: median(readParse),
    importMs: median(imports),
    checkpointMs: median(checkpoints),
    searchIndexMs: median(search),
    ratioRange: [Math.min(...ratios), Math.max(...ratios)],
    first: { importMs: imports[0] as number, ratio: ratios[0] as number, startedThread },
    threadFiles,
  };
}

export function runImportBench(options: { runs?: number; generated?: boolean } = {}): ImportFigures[] {
  const files = fixtureFiles();
  if (options.generated !== false) {
    const g = writeGeneratedSession(defaultGeneratedPath());
    console.log(
      `generated session: ${g.entries} entries, ${(g.bytes / 1e6).toFixed(1)} MB, ${g.compactions} compactions`,
    );
    files.push(g.file);
  }
  const figures: ImportFigures[] = [];
  // Small files are dominated by a fixed cost per file (statements, commit): the whole fixtures
  // folder imported at once shows the throughput a user importing their sessions sees.
  if (fixtureFiles().length > 1) files.push(fixturesDir());
  if (options.generated !== false) {
    // A sessions folder of many medium files (each under the single-file threshold of the thread).
    const dir = path.join(path.dirname(defaultGeneratedPath()), "folder-64x1000");
    const g = writeGeneratedFolder(dir, 64, 1000);
    console.log(`generated folder: 64 sessions, ${g.entries} entries, ${(g.bytes / 1e6).toFixed(1)} MB`);
    files.push(dir);
  }
  for (const file of files) {
    const big = filesAt(file).reduce((sum, f) => sum + fs.statSync(f).size, 0) > 50e6;
    figures.push(measureImport(file, options.runs ?? (big ? 3 : 7)));
  }
  console.log("\nImport throughput (median of runs; ratio = import speed / baseline speed, target ≥ 0.33)\n");
  printTable(
    [
      "file",
      "MB",
      "entries",
      "parse MB/s",
      "read+parse MB/s",
      "import ms",
      "import MB/s",
      "import entries/s",
      "ratio vs parse",
      "run ratios (min–max)",
      "ratio vs read+parse",
      "deferred ckpt ms",
      "ratio vs parse incl. ckpt",
      "search index MB/s",
      "files parsed on the thread",
    ],
    figures.map((f) => [
      !fs.statSync(f.file).isDirectory()
        ? path.basename(f.file)
        : f.file === fixturesDir()
          ? "all fixtures (one folder import)"
          : `${path.basename(f.file)} (one folder import)`,
      fmt(f.bytes / 1e6, 1),
      fmt(f.entries),
      fmt(mbps(f.bytes, f.parseMs)),
      fmt(mbps(f.bytes, f.readParseMs)),
      fmt(f.importMs, 1),
      fmt(mbps(f.bytes, f.importMs)),
      fmt(perSecond(f.entries, f.importMs)),
      fmt(f.parseMs / f.importMs, 2),
      `${fmt(f.ratioRange[0], 2)}–${fmt(f.ratioRange[1], 2)}`,
      fmt(f.readParseMs / f.importMs, 2),
      fmt(f.checkpointMs, 1),
      fmt(f.parseMs / (f.importMs + f.checkpointMs), 2),
      fmt(mbps(f.bytes, f.searchIndexMs)),
      `${f.threadFiles} of ${filesAt(f.file).length}`,
    ]),
  );
  for (const f of figures.filter((f) => f.bytes >= PARALLEL_PARSE_MIN_BYTES)) {
    const thread = f.first.startedThread ? "started the import thread" : "found the import thread waiting";
    console.log(
      `\n${path.basename(f.file)}: the first import (${fmt(f.first.importMs, 1)} ms, ratio ${fmt(f.first.ratio, 2)}) ${thread};` +
        ` later imports reuse it (it is kept ${IDLE_THREAD_SECONDS} s after an import).`,
    );
  }
  console.log(
    `\nFiles parsed on the thread: a folder import hands its files of ${fmt(READ_AHEAD_MIN_BYTES / 1024)} KB or more to the` +
      ` import thread when one is waiting (kept ${IDLE_THREAD_SECONDS} s after an import that used it) or when` +
      ` ${fmt(READ_AHEAD_START_BYTES / 2 ** 20)} MB of new data or more follow; otherwise they are parsed in place.` +
      " With --skip-generated no earlier import leaves the thread waiting, so the fixtures folder is parsed in place.",
  );
  printStoreFloors(figures.filter((f) => f.bytes < 50e6));
  console.log(
    "\nbaseline entries/s (parse):",
    figures.map((f) => `${path.basename(f.file)} ${fmt(perSecond(f.entries, f.parseMs))}`).join(", "),
  );
  return figures;
}

/**
 * What storing alone costs (see store-floor.ts) next to each import — in this library's schema,
 * and bare (any SQLite table) — and the best ratio against JSON.parse each floor leaves: parse +
 * store on one thread, the larger of the two on two.
 */
function printStoreFloors(figures: readonly ImportFigures[]): void {
  if (figures.length === 0) return;
  const rows = figures.map((f) => ({
    f,
    floorMs: measureStoreFloor(filesAt(f.file), 15),
    bareMs: measureBareSqliteFloor(filesAt(f.file), 15),
  }));
  console.log(
    "\nStorage floor: storing the parsed rows and JSON and committing, nothing else (warm connection)." +
      " No import into this library can take less, so it bounds the ratio an import can reach." +
      " Bare SQLite: the file's lines stored as text in a table with no index (one transaction, same" +
      " pragmas) — no import into any SQLite library can take less.\n",
  );
  printTable(
    [
      "file",
      "parse ms",
      "import ms",
      "store floor ms",
      "ratio vs parse",
      "best possible, one thread",
      "best possible, two threads",
      "bare SQLite ms",
      "bare: best, one thread",
      "bare: best, two threads",
    ],
    rows.map(({ f, floorMs, bareMs }) => [
      fs.statSync(f.file).isDirectory() ? `${path.basename(f.file)}/ (folder)` : path.basename(f.file),
      fmt(f.parseMs, 2),
      fmt(f.importMs, 1),
      fmt(floorMs, 2),
      fmt(f.parseMs / f.importMs, 2),
      fmt(f.parseMs / (f.parseMs + floorMs), 2),
      fmt(f.parseMs / Math.max(f.parseMs, floorMs), 2),
      fmt(bareMs, 2),
      fmt(f.parseMs / (f.parseMs + bareMs), 2),
      fmt(f.parseMs / Math.max(f.parseMs, bareMs), 2),
    ]),
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const runsAt = process.argv.indexOf("--runs");
  const runs = runsAt > 0 ? Number(process.argv[runsAt + 1]) : undefined;
  runImportBench({ ...(runs ? { runs } : {}), generated: !process.argv.includes("--skip-generated") });
}
