// Re-import: unchanged files change nothing; appended lines add only the new entries; a
// truncated last line is replaced once complete; rewritten and moved files lose nothing.
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { exportSession } from "../../../main/library/export.ts";
import { importPath } from "../../../main/library/import.ts";
import { importRead, readForImport } from "../../../main/library/import-file.ts";
import {
  getSessionSummary,
  loadMalformedLines,
  loadSessionEntries,
  loadStoredEntries,
} from "../../../main/library/load.ts";
import { appendSessionEntries } from "../../../main/library/write.ts";
import { openDatabase } from "../../../main/store/open.ts";
import { copyFixture, jsonLines, type Library, makeLibrary, nonBlankLines } from "./helpers.ts";

let lib: Library;
beforeEach(() => {
  lib = makeLibrary();
});
afterEach(() => lib.cleanup());

function tableCounts(): number[] {
  return ["entries", "malformed_lines", "entry_text", "sessions"].map(
    (t) => lib.db.prepare(`SELECT count(*) FROM ${t}`).pluck().get() as number,
  );
}

/** Splits a fixture into its first `keep` lines (written) and the rest. */
function splitFixture(name: string, keep: number): { file: string; head: string[]; rest: string[] } {
  const file = copyFixture(name, lib.dir);
  const lines = nonBlankLines(fs.readFileSync(file, "utf8"));
  const head = lines.slice(0, keep);
  fs.writeFileSync(file, `${head.join("\n")}\n`);
  return { file, head, rest: lines.slice(keep) };
}

describe("re-import", () => {
  it("an unchanged file changes nothing (also when touched)", () => {
    const file = copyFixture("tree-02.jsonl", lib.dir);
    const first = importPath(lib.db, file);
    expect(first.imported).toBe(1);
    const before = tableCounts();
    const again = importPath(lib.db, file);
    expect(again.unchanged).toBe(1);
    expect(again.entriesAdded).toBe(0);
    expect(again.files[0]?.status).toBe("unchanged");
    const later = new Date(Date.now() + 60_000);
    fs.utimesSync(file, later, later);
    expect(importPath(lib.db, file).unchanged).toBe(1);
    expect(tableCounts()).toEqual(before);
  });

  it("appended lines add only the new entries, parsed from the tail", () => {
    const { file, head, rest } = splitFixture("tree-03.jsonl", 400);
    const id = importPath(lib.db, file).files[0]?.sessionId ?? "";
    expect(getSessionSummary(lib.db, id).entryCount).toBe(399);
    const beforeRows = lib.db.prepare("SELECT pk, seq FROM entries ORDER BY seq").all();

    fs.appendFileSync(file, `${rest.slice(0, 100).join("\n")}\n`);
    const grown = importPath(lib.db, file);
    expect(grown.files[0]?.status).toBe("updated");
    expect(grown.files[0]?.entriesAdded).toBe(100);
    expect(grown.files[0]?.problems.filter((p) => p.kind === "file_rewritten")).toEqual([]);
    // The old rows were not rewritten.
    expect(lib.db.prepare("SELECT pk, seq FROM entries ORDER BY seq LIMIT 399").all()).toEqual(beforeRows);

    fs.appendFileSync(file, `${rest.slice(100).join("\n")}\n`);
    expect(importPath(lib.db, file).entriesAdded).toBe(rest.length - 100);
    const all = [...head, ...rest];
    expect(jsonLines(exportSession(lib.db, id).text ?? "")).toEqual(all.map((l) => JSON.parse(l)));
    expect(loadStoredEntries(lib.db, id).map((s) => s.line)).toEqual(all.slice(1).map((_, i) => i + 2));
  });

  it("a truncated last line is kept as malformed, then replaced when the agent completes it", () => {
    const { file, head, rest } = splitFixture("tree-01.jsonl", 50);
    const next = rest[0] ?? "";
    fs.appendFileSync(file, next.slice(0, 40));
    const first = importPath(lib.db, file);
    const id = first.files[0]?.sessionId ?? "";
    expect(first.files[0]?.malformedLines).toBe(1);
    expect(loadMalformedLines(lib.db, id)).toEqual([
      expect.objectContaining({ line: 51, raw: next.slice(0, 40) }),
    ]);
    // The partial line is exported back verbatim at its position (D2).
    expect(nonBlankLines(exportSession(lib.db, id).text ?? "").at(-1)).toBe(next.slice(0, 40));

    fs.appendFileSync(file, `${next.slice(40)}\n${rest[1]}\n`);
    const second = importPath(lib.db, file);
    expect(second.files[0]?.status).toBe("updated");
    expect(second.files[0]?.entriesAdded).toBe(2);
    expect(loadMalformedLines(lib.db, id)).toEqual([]);
    const stored = loadStoredEntries(lib.db, id);
    expect(stored.at(-2)?.line).toBe(51);
    expect(stored.at(-2)?.entry).toEqual(JSON.parse(next));
    expect(jsonLines(exportSession(lib.db, id).text ?? "")).toEqual(
      [...head, rest[0], rest[1]].map((l) => JSON.parse(l ?? "")),
    );
    expect(getSessionSummary(lib.db, id).malformedCount).toBe(0);
  });

  it("an unterminated but valid last line is re-read, not duplicated", () => {
    const { file, rest } = splitFixture("tree-00.jsonl", 20);
    fs.appendFileSync(file, rest[0] ?? "");
    const id = importPath(lib.db, file).files[0]?.sessionId ?? "";
    expect(getSessionSummary(lib.db, id).entryCount).toBe(20);
    fs.appendFileSync(file, `\n${rest[1]}\n`);
    const report = importPath(lib.db, file);
    expect(report.entriesAdded).toBe(1);
    expect(getSessionSummary(lib.db, id).entryCount).toBe(21);
  });

  /** The agent's full rewrite (SPEC §1.7): a temp file renamed over the session file. */
  function agentRewrite(file: string, lines: string[]): void {
    const tmp = path.join(path.dirname(file), `.${path.basename(file)}.1.tmp`);
    fs.writeFileSync(tmp, `${lines.join("\n")}\n`);
    fs.renameSync(tmp, file);
  }

  it("a half-written last line, then the agent's rewrite holding it whole: stored once, the half line gone", () => {
    const { file, head, rest } = splitFixture("tree-01.jsonl", 50);
    const next = rest[0] ?? "";
    fs.appendFileSync(file, next.slice(0, 40));
    const id = importPath(lib.db, file).files[0]?.sessionId ?? "";
    expect(loadMalformedLines(lib.db, id)).toHaveLength(1);

    const header = { ...(JSON.parse(head[0] ?? "{}") as object), title: "Renamed by the agent" };
    const rewritten = [JSON.stringify(header), ...head.slice(1), next, rest[1] ?? ""];
    agentRewrite(file, rewritten);
    const report = importPath(lib.db, file).files[0];
    expect(report?.entriesAdded).toBe(2);
    expect(loadMalformedLines(lib.db, id)).toEqual([]);
    expect(getSessionSummary(lib.db, id).malformedCount).toBe(0);
    expect(jsonLines(exportSession(lib.db, id).text ?? "")).toEqual(rewritten.map((l) => JSON.parse(l)));
  });

  it("the import report says a half-written last line is being written, as the session's problems do, not that it is kept as invalid", () => {
    // `canopy import` said "line 51: invalid JSON …; the line is kept, and export writes it back"
    // while `canopy show` said it is read again once complete, which is what happens.
    const writing = "still being written (no newline yet); it is read again once its agent ends it";
    const messages = (report: ReturnType<typeof importPath>) =>
      (report.files[0]?.problems ?? [])
        .filter((p) => p.kind === "malformed_line")
        .map((p) => [p.line, p.message]);
    const { file, head, rest } = splitFixture("tree-01.jsonl", 50);
    fs.appendFileSync(file, (rest[0] ?? "").slice(0, 40));
    // A new session (the full parse).
    expect(messages(importPath(lib.db, file))).toEqual([[51, writing]]);
    // Grown (the tail): the line done, the next one half written.
    fs.appendFileSync(file, `${(rest[0] ?? "").slice(40)}\n${(rest[1] ?? "").slice(0, 40)}`);
    expect(messages(importPath(lib.db, file))).toEqual([[52, writing]]);
    // Rewritten by its agent (the merge), the half line still there.
    const header = JSON.stringify({ ...(JSON.parse(head[0] ?? "{}") as object), title: "Renamed" });
    fs.writeFileSync(
      file,
      `${[header, ...head.slice(1), rest[0]].join("\n")}\n${(rest[1] ?? "").slice(0, 40)}`,
    );
    expect(messages(importPath(lib.db, file))).toEqual([[52, writing]]);
    // A bad line that is ended is what it was.
    fs.appendFileSync(file, "\n");
    const ended = messages(importPath(lib.db, file));
    expect(
      ended.map(([line, message]) => [
        line,
        String(message).endsWith("the line is kept, and export writes it back"),
      ]),
    ).toEqual([[52, true]]);
  });

  it("a half-written line still unfinished after a rewrite stays one provisional line, replaced once whole", () => {
    const { file, head, rest } = splitFixture("tree-01.jsonl", 50);
    const next = rest[0] ?? "";
    fs.appendFileSync(file, next.slice(0, 100));
    const id = importPath(lib.db, file).files[0]?.sessionId ?? "";
    // The agent renames the session while the line is still being written (it is written out as is).
    const header = JSON.stringify({ ...(JSON.parse(head[0] ?? "{}") as object), title: "Renamed" });
    const tmp = path.join(path.dirname(file), `.${path.basename(file)}.1.tmp`);
    fs.writeFileSync(tmp, `${[header, ...head.slice(1)].join("\n")}\n${next.slice(0, 100)}`);
    fs.renameSync(tmp, file);
    importPath(lib.db, file);
    expect(loadMalformedLines(lib.db, id)).toEqual([expect.objectContaining({ raw: next.slice(0, 100) })]);
    // Then its rest is appended: the whole line replaces it.
    fs.appendFileSync(file, `${next.slice(100)}\n`);
    importPath(lib.db, file);
    expect(loadMalformedLines(lib.db, id)).toEqual([]);
    expect(jsonLines(exportSession(lib.db, id).text ?? "")).toEqual(
      [header, ...head.slice(1), next].map((l) => JSON.parse(l)),
    );
  });

  it("a half-written line the agent's rewrite changed (an output pruned, so it no longer starts the same) goes too", () => {
    const { file, head, rest } = splitFixture("tree-01.jsonl", 50);
    const next = rest[0] ?? "";
    fs.appendFileSync(file, next.slice(0, 100));
    const id = importPath(lib.db, file).files[0]?.sessionId ?? "";
    const header = JSON.stringify({ ...(JSON.parse(head[0] ?? "{}") as object), title: "Renamed" });
    const changed = JSON.stringify({ ...(JSON.parse(next) as object), timestamp: "2026-12-05T00:00:00.000Z" });
    expect(changed.startsWith(next.slice(0, 100))).toBe(false);
    const rewritten = [header, ...head.slice(1), changed];
    agentRewrite(file, rewritten);
    importPath(lib.db, file);
    expect(loadMalformedLines(lib.db, id)).toEqual([]);
    expect(jsonLines(exportSession(lib.db, id).text ?? "")).toEqual(rewritten.map((l) => JSON.parse(l)));
  });

  it("a rewritten file is re-parsed and merged by id: nothing stored is lost", () => {
    const file = copyFixture("tree-01.jsonl", lib.dir);
    const id = importPath(lib.db, file).files[0]?.sessionId ?? "";
    const before = loadSessionEntries(lib.db, id);
    const lines = nonBlankLines(fs.readFileSync(file, "utf8"));
    // The agent renamed the session and dropped the last 10 lines, then appended 2 new entries.
    const header = { ...(JSON.parse(lines[0] ?? "") as object), title: "Renamed" };
    const parent = (JSON.parse(lines.at(-11) ?? "") as { id: string }).id;
    const extra = [
      {
        type: "message",
        id: "aaaa0001",
        parentId: parent,
        timestamp: "2026-12-03T00:00:00.000Z",
        message: { role: "user", content: "a new question", timestamp: 1 },
      },
      {
        type: "label",
        id: "aaaa0002",
        parentId: "aaaa0001",
        timestamp: "2026-12-03T00:00:01.000Z",
        targetId: "aaaa0001",
        label: "new",
      },
    ];
    const rewritten = [
      JSON.stringify(header),
      ...lines.slice(1, -10),
      ...extra.map((e) => JSON.stringify(e)),
    ];
    fs.writeFileSync(file, `${rewritten.join("\n")}\n`);
    const report = importPath(lib.db, file);
    const f = report.files[0];
    expect(f?.status).toBe("updated");
    expect(f?.sessionId).toBe(id);
    expect(f?.entriesAdded).toBe(2);
    expect(f?.problems.map((p) => p.kind)).toContain("file_rewritten");
    const after = loadSessionEntries(lib.db, id);
    expect(after.slice(0, before.length)).toEqual(before);
    expect(after.slice(before.length)).toEqual(extra);
    expect(getSessionSummary(lib.db, id).title).toBe("Renamed");

    // Appending to the rewritten file is incremental again, and lands after the merged rows.
    const more = { ...extra[1], id: "aaaa0003", parentId: "aaaa0002" };
    fs.appendFileSync(file, `${JSON.stringify(more)}\n`);
    const grown = importPath(lib.db, file);
    expect(grown.files[0]?.problems.map((p) => p.kind)).not.toContain("file_rewritten");
    expect(grown.entriesAdded).toBe(1);
    const stored = loadStoredEntries(lib.db, id);
    expect(stored.at(-1)?.entry).toEqual(more);
    const seqs = stored.map((s) => s.line);
    expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
    expect(new Set(seqs).size).toBe(seqs.length);
  });

  it("a file cut short and then written whole again (plus new lines) stores no entry twice", () => {
    const file = copyFixture("tree-02.jsonl", lib.dir);
    const whole = fs.readFileSync(file, "utf8");
    const lines = nonBlankLines(whole);
    const id = importPath(lib.db, file).files[0]?.sessionId ?? "";
    const stored = getSessionSummary(lib.db, id).entryCount;
    expect(stored).toBe(lines.length - 1);

    // Cut short (a sync tool, an editor): the stored entries stay.
    fs.writeFileSync(file, `${lines.slice(0, 100).join("\n")}\n`);
    expect(importPath(lib.db, file).entriesAdded).toBe(0);
    // Written whole again with two new lines: only those two are new, nothing is a duplicate.
    const parentId = (JSON.parse(lines.at(-1) ?? "{}") as { id: string }).id;
    const added = [
      { type: "custom", customType: "x", id: "feed0001", parentId, timestamp: "2026-12-02T10:00:00.000Z" },
      {
        type: "custom",
        customType: "x",
        id: "feed0002",
        parentId: "feed0001",
        timestamp: "2026-12-02T10:00:01.000Z",
      },
    ];
    fs.writeFileSync(file, `${whole}${added.map((e) => JSON.stringify(e)).join("\n")}\n`);
    const again = importPath(lib.db, file).files[0];
    expect(again?.entriesAdded).toBe(2);
    expect(again?.problems.filter((p) => p.kind === "duplicate_id")).toEqual([]);
    expect(getSessionSummary(lib.db, id).entryCount).toBe(stored + 2);

    // From then on it grows by its tail again.
    const third = { ...added[1], id: "feed0003", parentId: "feed0002" };
    fs.appendFileSync(file, `${JSON.stringify(third)}\n`);
    const grown = importPath(lib.db, file).files[0];
    expect(grown?.entriesAdded).toBe(1);
    expect(grown?.problems).toEqual([]);
    expect(getSessionSummary(lib.db, id).entryCount).toBe(stored + 3);
  });

  it("a moved file keeps its session (same id), even when it changed on the way", () => {
    const file = copyFixture("tree-00.jsonl", lib.dir, "a/old.jsonl");
    const id = importPath(lib.db, file).files[0]?.sessionId ?? "";
    const moved = path.join(lib.dir, "b", "new.jsonl");
    fs.mkdirSync(path.dirname(moved));
    fs.renameSync(file, moved);
    const report = importPath(lib.db, moved);
    expect(report.files[0]?.sessionId).toBe(id);
    expect(report.imported).toBe(0);
    expect(getSessionSummary(lib.db, id).sourcePath).toBe(fs.realpathSync(moved));
    expect(lib.db.prepare("SELECT count(*) FROM sessions").pluck().get()).toBe(1);
  });

  it("Canopy's own entries survive an agent append and keep the order consistent", () => {
    const { file, rest } = splitFixture("tree-00.jsonl", 30);
    const id = importPath(lib.db, file).files[0]?.sessionId ?? "";
    const leaf = loadSessionEntries(lib.db, id).at(-1)?.id ?? null;
    const mine = {
      type: "label",
      id: "cccc0001",
      parentId: leaf,
      timestamp: "2026-12-03T00:00:00.000Z",
      targetId: leaf,
      label: "mine",
    };
    const [stored] = appendSessionEntries(lib.db, id, [mine]);
    expect(stored?.line).toBe(31);
    fs.appendFileSync(file, `${rest[0]}\n`);
    expect(importPath(lib.db, file).entriesAdded).toBe(1);
    const entries = loadStoredEntries(lib.db, id);
    expect(entries.at(-2)?.entry).toEqual(mine);
    expect(entries.at(-1)?.entry).toEqual(JSON.parse(rest[0] ?? ""));
    expect(entries.at(-1)?.line).toBe(32);
    expect(getSessionSummary(lib.db, id).fileLeafId).toBe((JSON.parse(rest[0] ?? "") as { id: string }).id);
  });

  it("a v1 file that grew is re-migrated; existing entries keep their deterministic ids", () => {
    const { file, rest } = splitFixture("real-large-session.v1.jsonl", 300);
    const id = importPath(lib.db, file).files[0]?.sessionId ?? "";
    const before = loadSessionEntries(lib.db, id);
    fs.appendFileSync(file, `${rest.slice(0, 50).join("\n")}\n`);
    const report = importPath(lib.db, file);
    expect(report.files[0]?.status).toBe("updated");
    expect(report.files[0]?.problems.map((p) => p.kind)).not.toContain("file_rewritten");
    expect(report.entriesAdded).toBe(50);
    const after = loadSessionEntries(lib.db, id);
    expect(after.slice(0, before.length)).toEqual(before);
    expect(after[before.length]?.parentId).toBe(before.at(-1)?.id);
  });

  it("a new file imported by another process between this import's read and its write stays one session", () => {
    const file = copyFixture("tree-02.jsonl", lib.dir);
    // This import reads the file (nothing known at its path yet)...
    const read = readForImport(lib.db, file, { minBytes: Number.POSITIVE_INFINITY });
    // ...while another connection (the app's watcher, a CLI) imports the same file.
    const other = openDatabase(lib.dbFile);
    try {
      expect(importPath(other, file).imported).toBe(1);
    } finally {
      other.close();
    }
    const outcome = importRead(lib.db, read, {});
    expect(outcome.report.status).toBe("unchanged");
    const sessions = lib.db.prepare("SELECT id FROM sessions").pluck().all();
    expect(sessions).toEqual([outcome.report.sessionId]);
    expect(importPath(lib.db, file).unchanged).toBe(1);
  });
});
