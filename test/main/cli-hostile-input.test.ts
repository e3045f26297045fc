// The `canopy` CLI on hostile input a user can meet (a giant word in a recorded tool output, a
// folder given as a session, a library written by a newer Canopy or behind a dangling link, output
// to a full disk, a pipe or device to import, an empty option value, a value over the API's limit):
// each gives the command's output or one true line, and the right exit code.
import { spawnSync } from "node:child_process";
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import Database from "better-sqlite3";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LATEST_VERSION } from "../../main/store/migrations/index.ts";
import { runCliCaptured } from "../helpers/cli.ts";
import { fixturePath, repoRoot } from "../helpers/fixtures.ts";

process.env.CANOPY_NO_DEMO = "1";

let dir: string;
let db: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "canopy-cli-hostile-"));
  db = path.join(dir, "library.db");
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function sessionFile(name: string, id: string, texts: readonly string[]): string {
  const lines = [
    { type: "session", version: 3, id, timestamp: "2026-12-01T00:00:00.000Z", cwd: "/w" },
    ...texts.map((text, i) => ({
      type: "message",
      id: `m${i}`,
      parentId: i === 0 ? null : `m${i - 1}`,
      timestamp: "2026-12-01T00:00:01.000Z",
      message: { role: "user", content: text, timestamp: 1 },
    })),
  ];
  const file = path.join(dir, name);
  writeFileSync(file, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
  return file;
}

describe("canopy search", () => {
  it("finds a word in an entry holding a 10-million-character word (a hex dump, a minified blob)", async () => {
    // The snippet's highlight pattern ran to the end of the word: V8's regexp stack overflowed and
    // every search matching that entry failed with "Maximum call stack size exceeded".
    const file = sessionFile("giant-word.jsonl", "giant-word", [
      "a short one",
      `feed${"f".repeat(10_000_000)}`,
    ]);
    expect((await runCliCaptured(["import", file, "--db", db])).code).toBe(0);
    const run = await runCliCaptured(["search", "feed", "--json", "--db", db]);
    expect(run.err).toBe("");
    expect(run.code).toBe(0);
    const hits = JSON.parse(run.out) as { entryId: string; snippet: string }[];
    expect(hits.map((hit) => hit.entryId)).toEqual(["m1"]);
    expect(hits[0]?.snippet.startsWith("[feedfff")).toBe(true);
    expect(hits[0]?.snippet.length).toBeLessThan(400);
  });

  it("says on stderr how quotes, - and OR are taken, as the app's search box does; plain words get no note", async () => {
    const file = sessionFile("syntax.jsonl", "syntax", ["the parser reads both dialects"]);
    expect((await runCliCaptured(["import", file, "--db", db])).code).toBe(0);
    const quoted = await runCliCaptured(["search", '"parser" -dialects', "--db", db]);
    expect(quoted.code).toBe(0);
    expect(quoted.err).toContain("quotes, * and a - before a word are left out");
    expect(quoted.out).toContain("m0");
    const plain = await runCliCaptured(["search", "parser", "--db", db]);
    expect(plain.err).toBe("");
  });
});

describe("a folder given as <session>", () => {
  it("says it is a folder and how to import it, not 'file not found'", async () => {
    const folder = path.join(dir, "sessions here");
    mkdirSync(folder);
    sessionFile("sessions here/one.jsonl", "in-folder", ["hello"]);
    for (const command of ["show", "context", "export"]) {
      const run = await runCliCaptured([command, folder, "--db", db]);
      expect(run.code, command).toBe(1);
      expect(run.out).toBe("");
      expect(run.err).toBe(
        `canopy: error: ${folder} is a folder, not a session: give a session id or a .jsonl file (\`canopy import '${folder}'\` imports the sessions below it)\n`,
      );
    }
    const here = await runCliCaptured(["show", ".", "--db", db]);
    expect(here.err).toMatch(/^canopy: error: \. is a folder, not a session: .*`canopy import \.`/);
  });

  it("a bare name is a session id first, even where a folder of that name is in the current one", async () => {
    // The tests run in the repository, which has a folder named "test".
    sessionFile("named-test.jsonl", "test", ["hello"]);
    expect((await runCliCaptured(["import", path.join(dir, "named-test.jsonl"), "--db", db])).code).toBe(0);
    const run = await runCliCaptured(["show", "test", "--db", db]);
    expect(run.err).toBe("");
    expect(run.out.split("\n")[0]).toBe("test  hello");
  });
});

describe("a library written by a newer Canopy", () => {
  it("is refused in one line that names --db, and left as it was", async () => {
    const newer = path.join(dir, "newer.db");
    expect((await runCliCaptured(["list", "--db", newer])).code).toBe(0);
    const raw = new Database(newer);
    raw.pragma("user_version = 999");
    raw.close();
    const before = readFileSync(newer);
    for (const args of [["list"], ["import", sessionFile("for-newer.jsonl", "for-newer", ["hi"])]]) {
      const run = await runCliCaptured([...args, "--db", newer]);
      expect(run.code).toBe(1);
      expect(run.out).toBe("");
      expect(run.err.split("\n")).toEqual([
        `canopy: error: The library database ${newer} has schema version 999, but this Canopy only knows versions up to ${LATEST_VERSION}. Update Canopy, or use another path (--db, or CANOPY_DB for the app).`,
        "",
      ]);
    }
    expect(readFileSync(newer).equals(before)).toBe(true);
  });
});

describe("output that cannot be written", () => {
  // /dev/full: every write fails with ENOSPC, as stdout redirected to a file on a full disk.
  it.runIf(existsSync("/dev/full"))("says so in one line and exits 1 (no stack trace)", () => {
    const file = fixturePath("tree-00.jsonl");
    for (const command of [["list"], ["show", file], ["context", file, "--json"], ["export", file]]) {
      const full = openSync("/dev/full", "w");
      try {
        const run = spawnSync("npm", ["run", "--silent", "canopy", "--", ...command, "--db", db], {
          cwd: repoRoot,
          encoding: "utf8",
          stdio: ["ignore", full, "pipe"],
        });
        expect(run.stderr, command[0]).toBe("canopy: error: could not write the output: the disk is full\n");
        expect(run.status, command[0]).toBe(1);
      } finally {
        closeSync(full);
      }
    }
  });
});

describe("import of a pipe or a device", () => {
  // `cat s.jsonl | canopy import /dev/stdin` said "No session files (*.jsonl) there: nothing
  // imported." and exited 0, as for an empty folder.
  it("fails with the reason, exit 1", async () => {
    const fifo = path.join(dir, "pipe.jsonl");
    const made = spawnSync("mkfifo", [fifo]).status === 0;
    for (const target of made ? ["/dev/null", fifo] : ["/dev/null"]) {
      const run = await runCliCaptured(["import", target, "--db", db]);
      expect(run.code, target).toBe(1);
      expect(run.out.split("\n").slice(1)).toEqual([
        `  failed    ${target} — not a file but a pipe or device: save the session to a file and import that`,
        "",
      ]);
      expect(run.err).toBe(`canopy: error: nothing could be imported from ${target}\n`);
      // As a <session> it said "file not found".
      const shown = await runCliCaptured(["show", target, "--db", db]);
      expect(shown.code).toBe(1);
      expect(shown.err).toBe(
        `canopy: error: ${target} is not a file but a pipe or device: save the session to a file and give that\n`,
      );
    }
  });
});

describe("a library behind a symbolic link that leads nowhere", () => {
  // ~/.config/canopy/library.db linked to a drive that is not mounted said SQLite's "unable to
  // open database file".
  it("says where the link leads, in one line, exit 1", async () => {
    const link = path.join(dir, "linked.db");
    const target = path.join(dir, "unmounted-drive", "library.db");
    symlinkSync(target, link);
    const run = await runCliCaptured(["list", "--db", link]);
    expect(run.code).toBe(1);
    expect(run.out).toBe("");
    expect(run.err).toBe(
      `canopy: error: Cannot open the library ${link}: it is a symbolic link to ${target}, whose folder does not exist (a drive not mounted?). Use another path (--db, or CANOPY_DB for the app).\n`,
    );
    expect(existsSync(path.dirname(target))).toBe(false);
  });
});

describe("an empty option value", () => {
  // `--leaf ""` said "context:get: leafId: cannot be empty" (the API's words), `--db ""` and
  // `--out ""` that the current folder is a folder (the empty path read as it).
  it("is a usage error naming the option", async () => {
    const file = sessionFile("for-empty.jsonl", "for-empty", ["hi"]);
    for (const args of [
      ["context", file, "--leaf", ""],
      ["export", file, "--out", ""],
      ["list", "--db", ""],
      ["list", "--db="],
    ]) {
      const withDb = args.includes("--db") || args.includes("--db=") ? args : [...args, "--db", db];
      const run = await runCliCaptured(withDb);
      const option = (args.find((arg) => arg.startsWith("--")) ?? "").replace("=", "");
      expect(run.code, args.join(" ")).toBe(2);
      expect(run.err).toBe(
        `canopy: ${option} is empty: give a value (${option} <value>) (see \`canopy help\`)\n`,
      );
    }
  });
});

describe("a value over the API's limit", () => {
  // Said in the API's words: "library:search: query: must be at most 1,000 characters long".
  it("is named as the command line gives it", async () => {
    const file = sessionFile("for-limits.jsonl", "for-limits", ["hi"]);
    const long = "q".repeat(1001);
    const cases: [string[], string][] = [
      [["search", long], "the query must be at most 1,000 characters long"],
      [["rename", file, long], "the title must be at most 1,000 characters long"],
    ];
    for (const [args, said] of cases) {
      const run = await runCliCaptured([...args, "--db", db]);
      expect(run.code, args[0]).toBe(1);
      expect(run.err).toBe(`canopy: error: ${said}\n`);
    }
  });
});

describe("export --out into folders that do not exist yet", () => {
  it("creates them, as the README says", async () => {
    const file = sessionFile("for-out.jsonl", "for-out", ["hi"]);
    const out = path.join(dir, "new", "folders", "out.jsonl");
    const run = await runCliCaptured(["export", file, "--out", out, "--db", db]);
    expect(run.code).toBe(0);
    expect(readFileSync(out, "utf8")).toBe(readFileSync(file, "utf8"));
  });
});

describe("a usage error", () => {
  // `canopy lsit --db x.db` and `canopy show --db x.db` created a library (3 MB, the demo
  // sessions, its folder) before saying the command was unknown or its argument missing.
  it("creates no library", async () => {
    for (const args of [["lsit"], ["show"], ["context", "--request"], ["toString"]]) {
      const folder = path.join(dir, "never-created");
      const run = await runCliCaptured([...args, "--db", path.join(folder, "library.db")]);
      expect(run.code, args.join(" ")).toBe(2);
      expect(existsSync(folder), args.join(" ")).toBe(false);
    }
    expect((await runCliCaptured(["lsit", "--db", db])).err).toBe(
      'canopy: unknown command "lsit" (did you mean list?) (see `canopy help`)\n',
    );
    expect((await runCliCaptured(["frobnicate", "--db", db])).err).toBe(
      'canopy: unknown command "frobnicate" (see `canopy help`)\n',
    );
  });
});

describe("a session id that looks like a path", () => {
  // A header id with "/" or ending in ".jsonl" was read as a file only: "file not found".
  it("is found by its full id when no such file exists", async () => {
    for (const id of ["team/fix-1", "notes.jsonl"]) {
      const file = path.join(dir, `${id.replace("/", "-")}-file.jsonl`);
      writeFileSync(
        file,
        `${JSON.stringify({ type: "session", version: 3, id, timestamp: "2026-12-01T00:00:00.000Z", cwd: "/w" })}\n`,
      );
      expect((await runCliCaptured(["import", file, "--db", db])).code).toBe(0);
      const run = await runCliCaptured(["show", id, "--db", db]);
      expect(run.err, id).toBe("");
      expect(run.out.split("\n")[0]?.startsWith(id)).toBe(true);
    }
    const missing = await runCliCaptured(["show", "nowhere/missing.jsonl", "--db", db]);
    expect(missing.err).toBe("canopy: error: file not found: nowhere/missing.jsonl\n");
  });
});

describe("line breaks in a session's title or cwd", () => {
  // `list` printed the cwd "/x\ny" over two lines, `show` the title "My\ntitle" too: a script
  // reading a session per two lines of `list` (or the header of `show`) read garbage.
  it("are shown as spaces, each field on its own line", async () => {
    const file = path.join(dir, "line-breaks.jsonl");
    const lines = [
      { type: "session", version: 3, id: "line-breaks", timestamp: "2026-12-01T00:00:00.000Z", cwd: "/x\ny" },
      {
        type: "message",
        id: "a",
        parentId: null,
        timestamp: "2026-12-01T00:00:01.000Z",
        message: { role: "user", content: "one\ntwo", timestamp: 1 },
      },
      { type: "session_info", id: "si", parentId: "a", timestamp: "2026-12-01T00:00:02.000Z", name: "My\r\ntitle" },
    ];
    writeFileSync(file, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
    const lineDb = path.join(dir, "line-breaks.db");
    expect((await runCliCaptured(["import", file, "--db", lineDb])).code).toBe(0);
    const list = await runCliCaptured(["list", "--db", lineDb]);
    expect(list.out.split("\n")).toEqual([
      expect.stringMatching(/^line-breaks {2}\S+ \S+ {2}2 entries, 0 compactions {2}\/x y$/),
      "    My title",
      "",
    ]);
    const show = await runCliCaptured(["show", "line-breaks", "--db", lineDb]);
    const [title, cwd] = show.out.split("\n");
    expect(title).toBe("line-breaks  My title");
    expect(cwd?.startsWith("cwd /x y · 2 entries")).toBe(true);
  });
});

describe("messages whose fields have the wrong shape", () => {
  // A content block that is null made `show` fail with "Cannot read properties of null (reading
  // 'type')"; a fileMention without files, with "… (reading 'map')".
  it("are shown as far as they go, and show, context and export work", async () => {
    const ts = "2026-12-01T00:00:01.000Z";
    const messages = [
      { role: "user", content: "fine", timestamp: 1 },
      { role: "assistant", content: [null, 5, "text", { type: "text", text: "after the junk" }], timestamp: 1 },
      { role: "fileMention", timestamp: 1 },
      { role: "fileMention", files: [null, { path: 7 }], timestamp: 1 },
      { role: "toolResult", content: null, timestamp: 1 },
      { role: "pythonExecution", timestamp: 1 },
      { role: "bashExecution", timestamp: 1 },
      { role: "compactionSummary", timestamp: 1 },
    ];
    const file = path.join(dir, "wrong-shapes.jsonl");
    const lines = [
      { type: "session", version: 3, id: "wrong-shapes", timestamp: "2026-12-01T00:00:00.000Z", cwd: "/w" },
      ...messages.map((message, i) => ({
        type: "message",
        id: `m${i}`,
        parentId: i === 0 ? null : `m${i - 1}`,
        timestamp: ts,
        message,
      })),
    ];
    writeFileSync(file, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
    expect((await runCliCaptured(["import", file, "--db", db])).code).toBe(0);
    const show = await runCliCaptured(["show", "wrong-shapes", "--db", db]);
    expect(show.err).toBe("");
    expect(show.code).toBe(0);
    expect(show.out).toContain("m1 assistant after the junk");
    expect(show.out).not.toContain("undefined");
    for (const args of [["context", "wrong-shapes"], ["export", "wrong-shapes"]]) {
      const run = await runCliCaptured([...args, "--db", db]);
      expect(run.err, args[0]).toBe("");
      expect(run.code, args[0]).toBe(0);
    }
  });
});
