// Large files are parsed on the import worker (main/library/parallel-rows.ts): the rows, malformed
// lines and content facts it hands over must be exactly what parsing in place gives, and a
// worker-parsed import must keep every line (export equals the file) — CRLF, blank lines,
// multibyte text, invalid UTF-8, a malformed line and an unterminated last line included.
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseSessionText } from "../../../core/session/jsonl.ts";
import { emptyContentFacts, TreeOrderCheck } from "../../../main/library/entry-facts.ts";
import { exportSession } from "../../../main/library/export.ts";
import { digestBytes } from "../../../main/library/files.ts";
import { importFile, importPath, READ_AHEAD_MIN_BYTES } from "../../../main/library/import.ts";
import { bodyRanges, openSource } from "../../../main/library/import-source.ts";
import { getSessionSummary } from "../../../main/library/load.ts";
import {
  endImportThreads,
  importThreadStats,
  importThreadWaiting,
  PARALLEL_PARSE_MIN_BYTES,
  type RowWorkerRun,
  rowBatches,
  startRowWorker,
} from "../../../main/library/parallel-rows.ts";
import type { RowBatch } from "../../../main/library/row-batches.ts";
import { expectSameSessions, type Library, makeLibrary, nonBlankLines } from "./helpers.ts";

let lib: Library;
beforeEach(() => {
  lib = makeLibrary();
});
afterEach(() => lib.cleanup());

const at = "2026-12-01T00:00:00.000Z";

/** A v3 session just over the worker threshold, with every odd line shape a real file can have. */
function largeSessionBytes(sessionId = "big", extraBytes = 0): Buffer {
  const parts: Buffer[] = [
    Buffer.from(
      `${JSON.stringify({ type: "session", version: 3, id: sessionId, timestamp: at, cwd: "/w" })}\n`,
    ),
  ];
  const filler = "The quick brown fox — naïve café 日本語 🌲 ".repeat(60);
  let parent: string | null = null;
  let size = 0;
  for (let i = 0; size < PARALLEL_PARSE_MIN_BYTES + 1_000_000 + extraBytes; i++) {
    const id = `e${i.toString(16).padStart(7, "0")}`;
    const entry =
      i % 300 === 7
        ? {
            type: "compaction",
            id,
            parentId: parent,
            timestamp: at,
            summary: "s",
            shortSummary: ` title ${i} `,
            firstKeptEntryId: parent,
            tokensBefore: 1000,
          }
        : i % 2 === 0
          ? {
              type: "message",
              id,
              parentId: parent,
              timestamp: at,
              message: { role: "user", content: `question ${i} ${filler}`, timestamp: 1 },
            }
          : {
              type: "message",
              id,
              parentId: parent,
              timestamp: at,
              message: {
                role: "assistant",
                content: [{ type: "text", text: `answer ${i} ${filler}` }],
                provider: "p",
                model: "m",
                // Usage on some replies (an odd value too): the worker hands each row's over.
                ...(i % 3 === 1
                  ? {
                      usage: {
                        input: i,
                        output: "7",
                        cacheRead: 2,
                        cacheWrite: 0,
                        cost: { total: i / 1000 },
                      },
                    }
                  : {}),
                timestamp: 2,
              },
            };
    let line = Buffer.from(JSON.stringify(entry));
    if (i === 1234)
      line = Buffer.concat([line.subarray(0, 60), Buffer.from([0xff, 0xfe]), line.subarray(60)]);
    const ending = i % 97 === 0 ? "\r\n" : i % 89 === 0 ? "\n\n  \n" : "\n";
    parts.push(line, Buffer.from(ending));
    if (i === 900) parts.push(Buffer.from("{not json at all\n"));
    if (i === 1000)
      parts.push(
        Buffer.from(
          `${JSON.stringify({ type: "session_info", id: "info", parentId: id, timestamp: at, name: " Big one " })}\n`,
        ),
      );
    size += line.length + ending.length;
    parent = id;
  }
  parts.push(
    Buffer.from(
      JSON.stringify({
        type: "message",
        id: "last",
        parentId: parent,
        timestamp: at,
        message: { role: "user", content: "still being writ" },
      }).slice(0, 70),
    ),
  );
  return Buffer.concat(parts);
}

function collect(batches: Iterable<RowBatch>) {
  const rows: unknown[] = [];
  const malformed: unknown[] = [];
  for (const batch of batches) {
    for (const r of batch.rows)
      rows.push({ ...r, json: typeof r.json === "string" ? r.json : Buffer.from(r.json).toString("utf8") });
    malformed.push(...batch.malformed);
  }
  return { rows, malformed };
}

/** `buffer` parsed on the import worker (when its entry lines are at least `minBytes`) and in place. */
function parsedBothWays(buffer: Buffer, minBytes?: number) {
  const opened = openSource(buffer);
  if (!opened.ok) throw new Error(opened.reason);
  const run: RowWorkerRun | null = startRowWorker(opened.source, minBytes);
  expect(run).not.toBeNull();
  const onWorker = emptyContentFacts(false);
  const fromWorker = collect(rowBatches(opened.source, onWorker, run));
  const inPlace = emptyContentFacts(false);
  const fromHere = collect(rowBatches(opened.source, inPlace, null));
  return { run, fromWorker, fromHere, onWorker, inPlace };
}

describe("parsing large files on the import worker", () => {
  it("gives exactly the rows, malformed lines and facts of parsing in place", () => {
    const buffer = largeSessionBytes();
    const { run, fromWorker, fromHere, onWorker, inPlace } = parsedBothWays(buffer);

    expect(fromWorker.rows.length).toBeGreaterThan(1000);
    const withUsage = fromWorker.rows.filter((r) => (r as { usage: unknown }).usage !== null);
    expect(withUsage.length).toBeGreaterThan(300);
    expect(fromWorker).toEqual(fromHere);
    expect(onWorker).toEqual(inPlace);
    // The worker also hashes the file (whole, and up to the unterminated last line) and checks the tree order.
    const order = new TreeOrderCheck();
    for (const r of fromHere.rows as { id: string | null; parentId: string | null; type: string; role: string | null }[])
      order.add(r.id, r.parentId, r.type, r.role);
    expect(order.healthy).toBe(true);
    expect(run?.result).toEqual({ digest: digestBytes(buffer), treeInOrder: true });
    expect(run?.result?.digest.importedHash).not.toBe(run?.result?.digest.hash);
    expect(inPlace).toMatchObject({
      displayName: "Big one",
      compactionTitle: expect.stringMatching(/^title \d+$/),
    });
    expect(inPlace.firstMessage).toMatch(/^question 0 The quick brown fox — naïve café 日本語 🌲/);
    // The invalid bytes are stored decoded (U+FFFD), as the in-place parse stores them.
    const broken = fromHere.rows.find((r) => (r as { id: string }).id === "e00004d2") as { json: string };
    expect(broken.json).toContain("\ufffd");
    expect(fromHere.malformed.map((m) => (m as { raw: string }).raw)).toEqual([
      "{not json at all",
      expect.stringMatching(/^\{"type":"message","id":"last"/),
    ]);
  });

  it("a v1 or v2 file parsed and migrated on the worker gives exactly the rows, malformed lines and facts of parsing in place", () => {
    // Over one chunk (4 MB), with compactions pointing back, ahead (across the chunk boundary) and past the end.
    const header = (version?: number) =>
      JSON.stringify({
        type: "session",
        ...(version ? { version } : {}),
        id: `v${version ?? 1}`,
        timestamp: at,
        cwd: "/w",
      });
    const lines: string[] = [];
    for (let i = 0; i < 2500; i++) {
      const kept = i === 10 ? 2400 : i === 2490 ? 99_999 : i - 1;
      lines.push(
        i % 500 === 3 || i === 10 || i === 2490
          ? JSON.stringify({
              type: "compaction",
              timestamp: at,
              summary: "s",
              firstKeptEntryIndex: kept,
              tokensBefore: 9,
            })
          : i === 7
            ? JSON.stringify({ type: "custom", id: "own", customType: "x" })
            : JSON.stringify({
                type: "message",
                timestamp: at,
                message: {
                  role: i % 2 ? "assistant" : "user",
                  content: `turn ${i} — naïve 日本語 🌲 ${"x".repeat(1500 + (i % 300))}`,
                },
              }),
      );
      if (i === 40) lines.push("{not json");
    }
    const v1 = Buffer.from(
      `garbage first\n${header()}\r\n${lines.join("\r\n")}\n\n  \n${lines[1]?.slice(0, 50)}`,
    );
    const v2Lines = lines.map((l, i) =>
      l === "{not json"
        ? l
        : JSON.stringify({
            ...JSON.parse(l),
            id: `i${i}`,
            parentId: i === 0 ? null : `i${i - 1}`,
            ...(i === 5 ? { message: { role: "hookMessage", content: "hook é" } } : {}),
          }),
    );
    const v2 = Buffer.from(`${header(2)}\n${v2Lines.join("\n")}\n`);
    // Bytes that are no UTF-8: stored as decoded, as in place.
    const broken = Buffer.concat([v1.subarray(0, 4000), Buffer.from([0xff, 0xfe]), v1.subarray(4000)]);
    for (const buffer of [v1, v2, broken]) {
      const { run, fromWorker, fromHere, onWorker, inPlace } = parsedBothWays(buffer, 1);
      expect(fromWorker.rows.length).toBeGreaterThan(2000);
      expect(buffer.length).toBeGreaterThan(4 * 1024 * 1024);
      expect(fromWorker).toEqual(fromHere);
      // The stored JSON is what migrating the whole file at once gives (ids, parents, kept ids).
      const whole = parseSessionText(buffer.toString("utf8")).entries.map((e) => e.entry);
      expect(fromHere.rows.map((r) => JSON.parse((r as { json: string }).json))).toEqual(whole);
      expect(onWorker).toEqual(inPlace);
      expect(run?.result).toEqual({ digest: digestBytes(buffer), treeInOrder: expect.any(Boolean) });
    }
  });

  it("a file still being read is cut into the same chunks once its bytes arrive", () => {
    const buffer = largeSessionBytes();
    const opened = openSource(buffer);
    if (!opened.ok) throw new Error(opened.reason);
    const { start, firstLine } = opened.source.body;
    const whole = [...bodyRanges(buffer, start, firstLine)];
    // Bytes arrive 300 KB at a time; beyond them the buffer holds garbage that must not be read.
    const partial = Buffer.alloc(buffer.length, 0x0a);
    let bytes = 0;
    const arrived = (want: number) => {
      while (bytes < Math.min(want, buffer.length)) {
        const next = Math.min(bytes + 300_000, buffer.length);
        buffer.copy(partial, bytes, bytes, next);
        bytes = next;
      }
      return { bytes, complete: bytes === buffer.length };
    };
    expect([...bodyRanges(partial, start, firstLine, arrived)]).toEqual(whole);
    expect(whole.length).toBeGreaterThan(2);
  });

  it("small files are parsed in place (no worker to start)", () => {
    const opened = openSource(
      Buffer.from(`${JSON.stringify({ type: "session", version: 3, id: "s", timestamp: at, cwd: "/w" })}\n`),
    );
    if (!opened.ok) throw new Error(opened.reason);
    expect(startRowWorker(opened.source)).toBeNull();
  });

  it("a worker-parsed import keeps every line, and the unterminated last line is completed by the next import", () => {
    const buffer = largeSessionBytes();
    const file = path.join(lib.dir, "big.jsonl");
    fs.writeFileSync(file, buffer);
    const report = importPath(lib.db, file);
    expect(report.failed).toBe(0);
    // Inserted without per-row foreign-key lookups: the keys hold, and enforcement is back on.
    expect(lib.db.pragma("foreign_key_check")).toEqual([]);
    expect(lib.db.pragma("foreign_keys", { simple: true })).toBe(1);
    const [imported] = report.files;
    const summary = getSessionSummary(lib.db, "big");
    expect(summary).toMatchObject({
      title: "Big one",
      malformedCount: 2,
      compactionCount: expect.any(Number),
    });
    expect(summary.compactionCount).toBeGreaterThan(2);

    const exported = exportSession(lib.db, "big").text ?? "";
    const original = buffer.toString("utf8");
    expect(exported.split("\n").filter((l) => l.trim() !== "")).toEqual(
      original
        .split("\n")
        .map((l) => l.replace(/\r$/, ""))
        .filter((l) => l.trim() !== ""),
    );

    // The agent finishes writing its last line: only that entry is added.
    const rest = JSON.stringify({
      type: "message",
      id: "last",
      parentId: null,
      timestamp: at,
      message: { role: "user", content: "still being writ" },
    }).slice(70);
    fs.appendFileSync(file, `${rest}\n`);
    const again = importPath(lib.db, file);
    expect(again.files[0]).toMatchObject({ status: "updated", entriesAdded: 1, malformedLines: 0 });
    expect(getSessionSummary(lib.db, "big").malformedCount).toBe(1);
    const last = JSON.parse(nonBlankLines(exportSession(lib.db, "big").text ?? "").at(-1) ?? "null");
    expect(last).toMatchObject({ id: "last" });
    expect(imported?.entriesAdded).toBeGreaterThan(1000);
  });

  it("the worker thread is kept for the next import, and a thread left halfway is not reused", () => {
    // The second file is smaller: it is read into the first one's memory, whose tail it must not see.
    const first = largeSessionBytes("one", 2_000_000);
    const second = largeSessionBytes("two");
    const files = [first, second].map((bytes, i) => {
      const file = path.join(lib.dir, `big-${i}.jsonl`);
      fs.writeFileSync(file, bytes);
      return file;
    });
    const started = importThreadStats();
    for (const file of files) expect(importPath(lib.db, file).files[0]).toMatchObject({ status: "imported" });
    // At most one thread was started (none when an earlier import left one waiting).
    expect(importThreadStats().started - started.started).toBeLessThanOrEqual(1);
    expect(importThreadStats().files - started.files).toBe(2);
    for (const [id, bytes] of [
      ["one", first],
      ["two", second],
    ] as const) {
      const exported = nonBlankLines(exportSession(lib.db, id).text ?? "");
      expect(exported).toEqual(nonBlankLines(bytes.toString("utf8").replace(/\r\n/g, "\n")));
      expect(getSessionSummary(lib.db, id)).toMatchObject({ title: "Big one", malformedCount: 2 });
    }

    // An import that stops reading the worker's batches halfway stops the thread: the next
    // import starts a fresh one and is complete.
    const opened = openSource(first);
    if (!opened.ok) throw new Error(opened.reason);
    const run = startRowWorker(opened.source);
    for (const _ of rowBatches(opened.source, emptyContentFacts(false), run)) break;
    const before = importThreadStats().started;
    const third = path.join(lib.dir, "big-2.jsonl");
    fs.writeFileSync(third, largeSessionBytes("three"));
    expect(importPath(lib.db, third).files[0]).toMatchObject({ status: "imported" });
    expect(importThreadStats().started).toBe(before + 1);
    expect(getSessionSummary(lib.db, "three")).toMatchObject({ title: "Big one", malformedCount: 2 });
  });

  it("an idle thread asked to end ends on its own (it is not terminated), and the next import starts another", async () => {
    const files = ["one", "two"].map((id) => {
      const file = path.join(lib.dir, `${id}.jsonl`);
      fs.writeFileSync(file, largeSessionBytes(id));
      return file;
    });
    expect(importPath(lib.db, files[0] as string).files[0]).toMatchObject({ status: "imported" });
    expect(importThreadWaiting()).toBe(true);
    const before = importThreadStats();
    // Asked to end, it closes its port and exits with code 0: nothing has to stop it from outside.
    await endImportThreads(10_000);
    expect(importThreadWaiting()).toBe(false);
    expect(importThreadStats().ended).toBe(before.ended + 1);
    expect(importPath(lib.db, files[1] as string).files[0]).toMatchObject({ status: "imported" });
    expect(importThreadStats()).toMatchObject({ started: before.started + 1, files: before.files + 1 });
    expect(getSessionSummary(lib.db, "two")).toMatchObject({ title: "Big one", malformedCount: 2 });
  });

  it("a folder import reads the thread's next files (past smaller ones) while it parses the current one: same sessions as one file at a time", () => {
    // Under the single-file threshold, but 35 MB in all: the folder import parses them on the
    // thread, reading the next file ahead. A v1 file and a non-session file sit in between.
    const folder = path.join(lib.dir, "folder");
    fs.mkdirSync(folder);
    const names: string[] = [];
    for (let i = 0; i < 5; i++) {
      const name = `medium-${i}.jsonl`;
      fs.writeFileSync(
        path.join(folder, name),
        largeSessionBytes(`m${i}`, 7_000_000 - PARALLEL_PARSE_MIN_BYTES),
      );
      names.push(name);
    }
    const v1 = [JSON.stringify({ type: "session", id: "old", timestamp: at, cwd: "/w" })];
    for (let i = 0; v1.join("\n").length < 2 * READ_AHEAD_MIN_BYTES; i++) {
      v1.push(
        JSON.stringify({
          type: "message",
          timestamp: at,
          message: { role: "user", content: `q ${i} ${"x".repeat(200)}` },
        }),
      );
    }
    fs.writeFileSync(path.join(folder, "medium-1a.v1.jsonl"), `${v1.join("\n")}\n`);
    fs.writeFileSync(path.join(folder, "medium-2a.jsonl"), Buffer.alloc(READ_AHEAD_MIN_BYTES * 2, 0x41));
    // Small sessions (parsed in place) between them: the thread's next files are read past them.
    for (const name of ["medium-0b-small", "medium-3b-small"]) {
      const lines = [JSON.stringify({ type: "session", version: 3, id: name, timestamp: at, cwd: "/w" })];
      lines.push(
        JSON.stringify({
          type: "message",
          id: "a",
          parentId: null,
          timestamp: at,
          message: { role: "user", content: "hi" },
        }),
      );
      fs.writeFileSync(path.join(folder, `${name}.jsonl`), `${lines.join("\n")}\n`);
      names.push(`${name}.jsonl`);
    }

    const started = importThreadStats();
    const report = importPath(lib.db, folder);
    expect(importThreadStats().started - started.started).toBeLessThanOrEqual(1);
    // The five v3 files and the v1 file (migrated there) were parsed on the thread, each answered
    // (none fell back to an in-place parse).
    expect(importThreadStats().files - started.files).toBe(6);
    expect(importThreadStats().unanswered).toBe(started.unanswered);
    // Every file for the thread after the first was read ahead, queued behind the one before it
    // (the non-session file too: it is read before its header is looked at).
    expect(importThreadStats().queued - started.queued).toBe(6);
    expect(report).toMatchObject({ imported: 8, skipped: 1, failed: 0 });

    // The same files imported one at a time (importFile: under 8 MB, parsed in place) into a second library.
    const other = makeLibrary();
    try {
      const onThread = importThreadStats().files;
      for (const name of [...names, "medium-1a.v1.jsonl"]) importFile(other.db, path.join(folder, name));
      expect(importThreadStats().files).toBe(onThread);
      expectSameSessions(lib.db, other.db, [
        "m0",
        "m1",
        "m2",
        "m3",
        "m4",
        "old",
        "medium-0b-small",
        "medium-3b-small",
      ]);
    } finally {
      other.cleanup();
    }
    expect(nonBlankLines(exportSession(lib.db, "m3").text ?? "")).toEqual(
      nonBlankLines(fs.readFileSync(path.join(folder, "medium-3.jsonl"), "utf8").replace(/\r\n/g, "\n")),
    );
  }, 120_000);

  it("imports the small files after a thread file while the thread parses it, keeping the order of files with the same header id", () => {
    const folder = path.join(lib.dir, "meanwhile");
    fs.mkdirSync(folder);
    const small = (name: string, headerId: string): void => {
      const lines = [
        JSON.stringify({ type: "session", version: 3, id: headerId, timestamp: at, cwd: "/w" }),
        JSON.stringify({
          type: "message",
          id: "a",
          parentId: null,
          timestamp: at,
          message: { role: "user", content: `hi from ${name}` },
        }),
      ];
      fs.writeFileSync(path.join(folder, name), `${lines.join("\n")}\n`);
    };
    // a-big goes to the thread (over the single-file threshold) and c-medium is read ahead for it.
    fs.writeFileSync(path.join(folder, "a-big.jsonl"), largeSessionBytes("big"));
    small("b-small.jsonl", "b");
    fs.writeFileSync(
      path.join(folder, "c-medium.jsonl"),
      largeSessionBytes("shared", 2 * READ_AHEAD_MIN_BYTES - PARALLEL_PARSE_MIN_BYTES - 1_000_000),
    );
    // Same header ids as files before them: in file order, they get derived session ids.
    small("d-small.jsonl", "shared");
    small("e-small.jsonl", "big");
    small("f-small.jsonl", "f");
    const names = fs.readdirSync(folder).sort();

    const onThread = importThreadStats().files;
    const progress: string[] = [];
    const report = importPath(lib.db, folder, {
      onProgress: (_d, _t, file) => progress.push(path.basename(file)),
    });
    expect(importThreadStats().files - onThread).toBe(2);
    expect(report).toMatchObject({ imported: 6, failed: 0 });
    expect(report.files.map((f) => path.basename(f.path))).toEqual(names);
    expect(progress).toEqual(names);

    const sessions = (db: Library["db"]) =>
      db.prepare("SELECT id, source_path AS file FROM sessions ORDER BY sid").all() as {
        id: string;
        file: string;
      }[];
    // b-small and f-small were stored before a-big's session (while the thread parsed it); the
    // small files sharing a header id with a file before them waited for their turn.
    expect(sessions(lib.db).map((s) => path.basename(s.file))).toEqual([
      "b-small.jsonl",
      "f-small.jsonl",
      "a-big.jsonl",
      "c-medium.jsonl",
      "d-small.jsonl",
      "e-small.jsonl",
    ]);

    // One file at a time, in file order: the same session ids for the same files, the same sessions.
    const other = makeLibrary();
    try {
      for (const name of names) importFile(other.db, path.join(folder, name));
      const idsByFile = (db: Library["db"]) =>
        Object.fromEntries(sessions(db).map((s) => [path.basename(s.file), s.id]));
      expect(idsByFile(lib.db)).toEqual(idsByFile(other.db));
      expect(idsByFile(lib.db)).toMatchObject({
        "a-big.jsonl": "big",
        "c-medium.jsonl": "shared",
        "f-small.jsonl": "f",
      });
      expectSameSessions(
        lib.db,
        other.db,
        sessions(other.db).map((s) => s.id),
      );
    } finally {
      other.cleanup();
    }
  });

  it("a batch rolled back while the thread parses a file loses only the files it held: the thread's file and the later ones are stored and reported so", () => {
    const folder = path.join(lib.dir, "rollback");
    fs.mkdirSync(folder);
    fs.writeFileSync(path.join(folder, "a-big.jsonl"), largeSessionBytes("big"));
    for (const id of ["b", "c", "d"]) {
      const lines = [
        JSON.stringify({ type: "session", version: 3, id, timestamp: at, cwd: "/w" }),
        JSON.stringify({
          type: "message",
          id: "a",
          parentId: null,
          timestamp: at,
          message: { role: "user", content: `hi from ${id}` },
        }),
      ];
      fs.writeFileSync(path.join(folder, `${id}-small.jsonl`), `${lines.join("\n")}\n`);
    }
    // Storing session c (imported while the thread parses a-big) rolls back the whole
    // transaction, as a full disk would: b, stored before it in the same batch, is lost with it.
    lib.db.exec(`CREATE TEMP TRIGGER fail_c BEFORE INSERT ON main.sessions WHEN NEW.header_id = 'c'
      BEGIN SELECT RAISE(ROLLBACK, 'disk is full'); END`);
    const onThread = importThreadStats().files;
    const report = importPath(lib.db, folder);
    expect(importThreadStats().files - onThread).toBe(1);
    expect(report.files.map((f) => [path.basename(f.path), f.status])).toEqual([
      ["a-big.jsonl", "imported"],
      ["b-small.jsonl", "failed"],
      ["c-small.jsonl", "failed"],
      ["d-small.jsonl", "imported"],
    ]);
    const stored = (): string[] =>
      (lib.db.prepare("SELECT id FROM sessions ORDER BY id").pluck().all() as string[]).filter(
        (id) => !getSessionSummary(lib.db, id).isDemo,
      );
    expect(stored()).toEqual(["big", "d"]);
    expect(lib.db.pragma("foreign_keys", { simple: true })).toBe(1);
    expect(lib.db.pragma("foreign_key_check")).toEqual([]);

    lib.db.exec("DROP TRIGGER fail_c");
    expect(importPath(lib.db, folder)).toMatchObject({ imported: 2, unchanged: 2, failed: 0 });
    expect(stored()).toEqual(["b", "big", "c", "d"]);
  });
});
