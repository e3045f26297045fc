// Hostile and odd inputs: random bytes, a 50 MB single-line entry, cycles, duplicate ids,
// unknown entry types, a folder with non-session files and a symlink loop.
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { exportSession } from "../../../main/library/export.ts";
import type { SessionFileList } from "../../../main/library/files.ts";
import { importPath } from "../../../main/library/import.ts";
import { getSessionDetail, getSessionSummary, loadSessionEntries } from "../../../main/library/load.ts";
import { repoRoot } from "../../helpers/fixtures.ts";
import { copyFixture, jsonLines, type Library, makeLibrary } from "./helpers.ts";

let lib: Library;
beforeEach(() => {
  lib = makeLibrary();
});
afterEach(() => lib.cleanup());

const header = (id: string) => ({
  type: "session",
  version: 3,
  id,
  timestamp: "2026-12-01T00:00:00.000Z",
  cwd: "/w",
});
const user = (id: string, parentId: string | null, text: string) => ({
  type: "message",
  id,
  parentId,
  timestamp: "2026-12-01T00:00:01.000Z",
  message: { role: "user", content: text, timestamp: 1 },
});

function writeJsonl(name: string, objects: unknown[]): string {
  const file = path.join(lib.dir, name);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${objects.map((o) => JSON.stringify(o)).join("\n")}\n`);
  return file;
}

describe("hostile inputs", () => {
  it("a file of random bytes is skipped with a one-line reason", () => {
    const file = path.join(lib.dir, "noise.jsonl");
    fs.writeFileSync(file, randomBytes(64 * 1024));
    const report = importPath(lib.db, file);
    expect(report.skipped).toBe(1);
    expect(report.files[0]?.status).toBe("skipped");
    expect(report.files[0]?.reason).toMatch(/\S/);
    expect(report.files[0]?.reason).not.toContain("\n");
    expect(lib.db.prepare("SELECT count(*) FROM sessions").pluck().get()).toBe(0);
  });

  it("a session saved as UTF-16 is skipped with a reason that says so", () => {
    const file = path.join(lib.dir, "utf16.jsonl");
    const text = `${JSON.stringify(header("u16"))}\n${JSON.stringify(user("a0000001", null, "hi"))}\n`;
    fs.writeFileSync(file, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, "utf16le")]));
    const report = importPath(lib.db, file);
    expect(report.files[0]).toMatchObject({
      status: "skipped",
      reason: "the file is UTF-16 text; session files are UTF-8 (save it as UTF-8 and import it again)",
    });
  });

  it("empty files and JSON that is not a session are skipped", () => {
    fs.writeFileSync(path.join(lib.dir, "empty.jsonl"), "");
    writeJsonl("other.jsonl", [{ type: "message", id: "x" }]);
    const report = importPath(lib.db, lib.dir);
    expect(report.skipped).toBe(2);
    expect(report.files.every((f) => f.reason && f.reason.length > 0)).toBe(true);
  });

  it("a 50 MB single-line entry is imported and exported intact", () => {
    const big = "x".repeat(50 * 1024 * 1024);
    const file = writeJsonl("big.jsonl", [
      header("big"),
      user("a0000001", null, "start"),
      user("a0000002", "a0000001", big),
    ]);
    const report = importPath(lib.db, file);
    expect(report.imported).toBe(1);
    const entries = loadSessionEntries(lib.db, "big");
    expect(entries).toHaveLength(2);
    expect((entries[1]?.message as { content: string } | undefined)?.content.length).toBe(big.length);
    expect(exportSession(lib.db, "big").text?.length).toBe(fs.statSync(file).size);
  }, 60_000);

  it("cycles and duplicate ids are stored, reported and exported unchanged", () => {
    const objects = [
      header("odd"),
      user("a0000001", null, "root"),
      user("a0000002", "a0000003", "cycle one"),
      user("a0000003", "a0000002", "cycle two"),
      user("a0000004", "a0000004", "self parent"),
      user("a0000001", null, "duplicate of the root id"),
      user("a0000005", "zzzzzzzz", "orphan"),
      {
        type: "future_thing",
        id: "a0000006",
        parentId: "a0000001",
        timestamp: "t",
        payload: { deep: [1, 2] },
      },
      {
        type: "message",
        parentId: "a0000001",
        timestamp: "t",
        message: { role: "user", content: "no id", timestamp: 1 },
      },
    ];
    const file = writeJsonl("odd.jsonl", objects);
    const report = importPath(lib.db, file);
    expect(report.imported).toBe(1);
    const kinds = report.files[0]?.problems.map((p) => p.kind) ?? [];
    for (const kind of ["cycle", "duplicate_id", "orphan", "unknown_type", "missing_id"])
      expect(kinds).toContain(kind);
    expect(loadSessionEntries(lib.db, "odd")).toEqual(objects.slice(1));
    expect(jsonLines(exportSession(lib.db, "odd").text ?? "")).toEqual(objects);
    const detail = getSessionDetail(lib.db, "odd");
    expect(detail.problems.length).toBe(getSessionSummary(lib.db, "odd").problemCount);
    expect(detail.problems.length).toBeGreaterThanOrEqual(5);
    // The unknown entry is kept verbatim, including fields Canopy does not know.
    expect(detail.entries.find((e) => e.entry.type === "future_thing")?.entry).toEqual(objects[7]);
  });

  it("malformed lines in the middle are kept and written back in place", () => {
    const file = path.join(lib.dir, "holes.jsonl");
    const lines = [
      JSON.stringify(header("holes")),
      JSON.stringify(user("a0000001", null, "one")),
      "{not json",
      "[1,2,3]",
      "",
      JSON.stringify(user("a0000002", "a0000001", "two")),
    ];
    fs.writeFileSync(file, `${lines.join("\n")}\n`);
    const report = importPath(lib.db, file);
    expect(report.files[0]?.malformedLines).toBe(2);
    expect(report.files[0]?.problems.filter((p) => p.kind === "malformed_line").map((p) => p.line)).toEqual([
      3, 4,
    ]);
    // The line number is the problem's `line`, not repeated in its message.
    for (const p of report.files[0]?.problems ?? []) expect(p.message).not.toMatch(/^line \d/);
    const exported = (exportSession(lib.db, "holes").text ?? "").split("\n").filter((l) => l !== "");
    expect(exported).toEqual(lines.filter((l) => l !== ""));
  });
});

describe("folder import", () => {
  it("walks folders recursively, only *.jsonl, skips non-sessions, survives a symlink loop", () => {
    copyFixture("tree-00.jsonl", lib.dir, "sessions/--home-a--/one.jsonl");
    copyFixture("tree-02.jsonl", lib.dir, "sessions/--home-b--/deeper/two.jsonl");
    fs.writeFileSync(path.join(lib.dir, "sessions", "notes.txt"), "not a session");
    fs.writeFileSync(path.join(lib.dir, "sessions", "--home-a--", "broken.jsonl"), '{"hello": "world"}\n');
    fs.symlinkSync(path.join(lib.dir, "sessions"), path.join(lib.dir, "sessions", "--home-b--", "loop"));
    const progress: [number, number][] = [];
    const report = importPath(lib.db, path.join(lib.dir, "sessions"), {
      onProgress: (d, t) => progress.push([d, t]),
    });
    expect(report.imported).toBe(2);
    expect(report.skipped).toBe(1);
    expect(report.failed).toBe(0);
    expect(report.files.find((f) => f.status === "skipped")?.path).toMatch(/broken\.jsonl$/);
    expect(report.files.some((f) => f.path.endsWith("notes.txt"))).toBe(false);
    expect(progress).toEqual([
      [1, 3],
      [2, 3],
      [3, 3],
    ]);
    expect(report.entriesAdded).toBe(46 + 350);
    expect(report.bytesRead).toBeGreaterThan(0);
  });

  it("finds a session a thousand folders deep in seconds (folders are not resolved level by level)", () => {
    const deep = path.join(lib.dir, "sessions", ...Array.from({ length: 1000 }, () => "a"));
    copyFixture("tree-00.jsonl", deep, "deep.jsonl");
    const started = performance.now();
    const report = importPath(lib.db, path.join(lib.dir, "sessions"));
    expect(report.imported).toBe(1);
    expect(report.failed).toBe(0);
    // About 0.5 s; resolving each folder's real path took over 20 s.
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it("does not report dangling symlinks that cannot be sessions (a browser's lock links in a home folder)", () => {
    copyFixture("tree-00.jsonl", lib.dir, "home/sessions/one.jsonl");
    // What Chromium leaves in its profile folder: links to things that are not there.
    fs.mkdirSync(path.join(lib.dir, "home", ".config", "chromium"), { recursive: true });
    fs.symlinkSync("host-12345", path.join(lib.dir, "home", ".config", "chromium", "SingletonLock"));
    fs.symlinkSync(path.join(lib.dir, "gone"), path.join(lib.dir, "home", "old-link"));
    fs.symlinkSync("self", path.join(lib.dir, "home", "self"));
    // A session file's link whose file is gone is still said (that file was meant to be imported).
    fs.symlinkSync(path.join(lib.dir, "gone.jsonl"), path.join(lib.dir, "home", "lost.jsonl"));
    const report = importPath(lib.db, path.join(lib.dir, "home"));
    expect(report.imported).toBe(1);
    expect(report.files.filter((f) => f.status === "failed").map((f) => path.basename(f.path))).toEqual([
      "lost.jsonl",
    ]);
  });

  it("a folder below that cannot be read is said to be a folder, not taken for a session file", () => {
    copyFixture("tree-00.jsonl", lib.dir, "walk/one.jsonl");
    const locked = path.join(lib.dir, "walk", "locked");
    fs.mkdirSync(locked);
    fs.chmodSync(locked, 0o000);
    try {
      // Root reads any folder: the walk runs without that power (a user namespace of its own).
      const script = `import { listSessionFiles } from ${JSON.stringify(path.join(repoRoot, "main/library/files.ts"))};
        console.log(JSON.stringify(listSessionFiles(${JSON.stringify(path.join(lib.dir, "walk"))})));`;
      const node = [process.execPath, "--experimental-strip-types", "--input-type=module", "-e", script];
      const asRoot = process.getuid?.() === 0;
      const run = spawnSync(asRoot ? "unshare" : (node[0] as string), asRoot ? ["-U", ...node] : node.slice(1), {
        encoding: "utf8",
      });
      expect(run.stderr).toBe("");
      const walked = JSON.parse(run.stdout) as SessionFileList;
      expect(walked.files.map((file) => path.basename(file))).toEqual(["one.jsonl"]);
      expect(walked.errors).toEqual([{ path: locked, reason: "a folder that cannot be read (permission denied)" }]);
    } finally {
      fs.chmodSync(locked, 0o755);
    }
  });

  it("a missing path is reported as failed, not thrown", () => {
    const report = importPath(lib.db, path.join(lib.dir, "nope"));
    expect(report.failed).toBe(1);
    expect(report.files[0]?.reason).toBeTruthy();
  });
});
