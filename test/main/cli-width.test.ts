// On an 80-column terminal, `canopy context`'s header (the request line, the marks, the grouped
// request notes, the stale measured figure) ran past the edge, and `canopy show` cut entry text
// at 80 characters after a prefix of up to ~60, whatever the terminal's width; list, search,
// import's report, compact --dry-run's file lists, help and some errors overflowed too. The real
// CLI is run here with COLUMNS (as a terminal that wide would be) and no line may be wider — but
// the messages' own text in `context` (content, written as it is). --json never changes.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LlmMessage } from "../../core/session/entries.ts";
import { messageText } from "../../core/session/message-text.ts";
import { textColumns } from "../../core/text/columns.ts";
import { runCliCaptured } from "../helpers/cli.ts";
import { fixturesDir, repoRoot } from "../helpers/fixtures.ts";

const WIDTHS = [60, 80, 200];

let dir: string;
let db: string;

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** The real CLI, in a process of its own; `columns`: COLUMNS set to it. */
function canopy(args: readonly string[], columns?: number, library = db): Run {
  const env: NodeJS.ProcessEnv = { ...process.env, CANOPY_NO_DEMO: "1" };
  delete env.COLUMNS;
  if (columns !== undefined) env.COLUMNS = String(columns);
  const run = spawnSync(
    process.execPath,
    [
      "--require",
      "./scripts/compile-cache.cjs",
      "--experimental-strip-types",
      "--no-warnings",
      "main/cli.ts",
      ...args,
      "--db",
      library,
    ],
    { cwd: repoRoot, encoding: "utf8", env, maxBuffer: 256 * 1024 * 1024 },
  );
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** The lines of `text` wider than `width` columns. */
function overflowing(text: string, width: number): string[] {
  return text.split("\n").filter((line) => textColumns(line) > width);
}

/** Branches 30 deep, each entry's text long, some labelled: the tree part alone is wider than 60. */
function writeDeepSession(file: string): void {
  const lines: unknown[] = [
    {
      type: "session",
      version: 3,
      id: "deep-width",
      timestamp: "2026-01-01T00:00:00Z",
      cwd: "/home/someone/projects/a-rather-long-project-folder-name/packages/core",
    },
  ];
  let parent: string | null = null;
  for (let i = 0; i < 30; i++) {
    for (const id of [`a${i}`, `b${i}`]) {
      lines.push({
        type: "message",
        id,
        parentId: parent,
        timestamp: "2026-01-01T00:00:01Z",
        message: {
          role: "user",
          content: `${id} 日本語のテキスト 🌳 ${"words of a long message ".repeat(12)}`,
        },
      });
    }
    if (i % 7 === 3) {
      lines.push({
        type: "label",
        id: `l${i}`,
        parentId: `b${i}`,
        timestamp: "2026-01-01T00:00:02Z",
        targetId: `b${i}`,
        label: "a label long enough to push the line past the edge",
      });
    }
    parent = `a${i}`;
  }
  fs.writeFileSync(file, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "canopy-width-"));
  db = path.join(dir, "library.db");
  const deep = path.join(dir, "deep.jsonl");
  writeDeepSession(deep);
  for (const source of [fixturesDir(), deep]) {
    const run = await runCliCaptured(["import", source, "--db", db]);
    expect(run.code, run.err).toBe(0);
  }
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** tree-02, tree-03 (branches, compactions), the real pi session, the generated deep one. */
const SHOWN = [
  "01a2361e-31d7-705e-a2fc-0e5296368179",
  "01a2361e-3203-7727-9845-303d6bc57ce8",
  "d703a1a9",
  "deep-width",
];

describe("canopy show at a terminal's width", () => {
  for (const width of WIDTHS) {
    it(`fits every line in ${width} columns`, () => {
      for (const session of SHOWN) {
        const run = canopy(["show", session], width);
        expect(run.status, run.stderr).toBe(0);
        expect(overflowing(run.stdout, width), `${session} at ${width}`).toEqual([]);
      }
    });
  }

  it("shows more of each entry's text on a wide terminal than the 80-character cut", () => {
    // Piped, one line of this session is wider than 120 columns (its header); at 200, hundreds.
    const run = canopy(["show", "d703a1a9"], 200);
    const wide = run.stdout.split("\n").filter((line) => textColumns(line) > 120);
    expect(wide.length).toBeGreaterThan(100);
  });
});

/** Every line of the messages' own text, as `context` writes it (content: never wrapped). */
function messageLines(session: string): Set<string> {
  const lines = new Set<string>();
  for (const args of [
    ["context", session, "--json"],
    ["context", session, "--json", "--request"],
  ]) {
    const run = canopy(args);
    expect(run.status, run.stderr).toBe(0);
    for (const message of JSON.parse(run.stdout) as LlmMessage[]) {
      for (const line of messageText(message).split("\n")) lines.add(line);
    }
  }
  return lines;
}

describe("canopy context at a terminal's width", () => {
  // tree-00: a measured figure from before the compaction in effect (the stale note); tree-02:
  // summaries, bash runs, custom messages; the real session: grouped request notes, failed replies.
  for (const session of [
    "01a2361e-31af-75a7-95c2-9bc5d25359f5",
    "01a2361e-31d7-705e-a2fc-0e5296368179",
    "d703a1a9",
  ]) {
    it(`fits its own lines (header, headings, request notes) in 60, 80 and 200 columns: ${session}`, () => {
      const content = messageLines(session);
      for (const width of WIDTHS) {
        const run = canopy(["context", session], width);
        expect(run.status, run.stderr).toBe(0);
        const header = run.stdout.split("\n\n")[0] ?? "";
        expect(header.split("\n").length, "a header").toBeGreaterThan(2);
        expect(overflowing(header, width), `header at ${width}`).toEqual([]);
        const ours = overflowing(run.stdout, width).filter((line) => !content.has(line));
        expect(ours, `${session} at ${width}`).toEqual([]);
      }
    });
  }

  it("wraps the stale note and the request line in 80 columns", () => {
    const run = canopy(["context", "01a2361e-31af-75a7-95c2-9bc5d25359f5"], 80);
    const header = (run.stdout.split("\n\n")[0] ?? "").replace(/\n {2}/g, " ");
    expect(header).toContain("(before the compaction in effect: stale until the next reply)");
    expect(header).toMatch(/Request as the agent sends it .* It carries \d+ messages\./);
  });
});

describe("other commands at a terminal's width", () => {
  const fresh = () => path.join(dir, `fresh-${Math.random().toString(36).slice(2)}.db`);
  const commands: string[][] = [
    ["list"],
    ["search", "test"],
    ["import", path.join(fixturesDir(), "tree-00.jsonl")],
    ["folders"],
    ["compact", "d703a1a9", "--dry-run"],
    ["prune", "d703a1a9", "--dry-run"],
    ["help"],
    ["show", "no-such-session"],
    ["shw"],
    ["export", "--leaf"],
  ];
  for (const width of [60, 80]) {
    it(`fit list, search, import, folders, compact and prune dry runs, help and errors in ${width} columns`, () => {
      for (const args of commands) {
        const run = canopy(args, width);
        expect(overflowing(run.stdout, width), `${args.join(" ")}: stdout`).toEqual([]);
        expect(overflowing(run.stderr, width), `${args.join(" ")}: stderr`).toEqual([]);
      }
      // An import report of files new to the library: their paths and ids.
      const other = canopy(["import", fixturesDir()], width, fresh());
      expect(other.status, other.stderr).toBe(0);
      expect(overflowing(other.stdout, width)).toEqual([]);
    });
  }

  it("prints help in at most 79 columns whatever the width (it is static text)", () => {
    expect(overflowing(canopy(["help"]).stdout, 79)).toEqual([]);
  });
});

describe("COLUMNS and --json", () => {
  it("leaves --json output as it is", () => {
    for (const args of [
      ["list", "--json"],
      ["context", "01a2361e-31af-75a7-95c2-9bc5d25359f5", "--json"],
      ["search", "test", "--json"],
    ]) {
      expect(canopy(args, 60).stdout, args.join(" ")).toBe(canopy(args).stdout);
    }
  });
});

describe("the progress line on a terminal", () => {
  // A progress line wider than the terminal wrapped, and the next one (written after "\r" and
  // erase-line) erased only its last part: the first parts stayed on screen, one per update.
  it("is cut to one line of the terminal's width", () => {
    const library = path.join(dir, "progress.db");
    const command = [
      "stty cols 30;",
      `'${process.execPath}' --require ./scripts/compile-cache.cjs --experimental-strip-types --no-warnings`,
      `main/cli.ts import '${fixturesDir()}' --db '${library}'`,
    ].join(" ");
    const env: NodeJS.ProcessEnv = { ...process.env, CANOPY_NO_DEMO: "1" };
    delete env.COLUMNS;
    const run = spawnSync("script", ["-qec", command, "/dev/null"], { cwd: repoRoot, encoding: "utf8", env });
    expect(run.status, run.stderr).toBe(0);
    const updates = run.stdout
      .split(/\r|\n/)
      .filter((part) => part.startsWith("\u001b[2K") && part.length > 4)
      .map((part) => part.slice(4));
    expect(updates.length).toBeGreaterThan(0);
    expect(updates.filter((line) => textColumns(line) > 29)).toEqual([]);
  });
});
