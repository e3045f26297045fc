// Import → export round trip for every shared fixture (D2): same JSON values line by line; v1
// files migrate on import and export losslessly; migration ids are deterministic.
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseSessionText, serializeSession } from "../../../core/session/jsonl.ts";
import { exportSession } from "../../../main/library/export.ts";
import { importPath } from "../../../main/library/import.ts";
import { getSessionSummary, loadSessionEntries, loadStoredEntries } from "../../../main/library/load.ts";
import { fixturePath, fixturesDir } from "../../helpers/fixtures.ts";
import { fixtureNames, jsonLines, type Library, makeLibrary } from "./helpers.ts";

let lib: Library;
beforeEach(() => {
  lib = makeLibrary();
});
afterEach(() => lib.cleanup());

function importOne(file: string): string {
  const report = importPath(lib.db, file);
  expect(report.failed).toBe(0);
  const id = report.files[0]?.sessionId;
  if (!id) throw new Error(`not imported: ${JSON.stringify(report.files[0])}`);
  return id;
}

describe("round trip of every fixture", () => {
  const names = fixtureNames(fixturesDir());
  it("finds the fixtures", () => {
    expect(names.length).toBeGreaterThanOrEqual(7);
  });

  for (const name of names) {
    it(`${name}: export gives the same JSON values line by line`, () => {
      const original = fs.readFileSync(fixturePath(name), "utf8");
      const parsed = parseSessionText(original);
      const id = importOne(fixturePath(name));
      const exported = exportSession(lib.db, id).text ?? "";
      if (parsed.migrated) {
        // v1/v2: the export is the migrated session, which is what the agent would write.
        if (!parsed.header) throw new Error("fixture without header");
        const migrated = serializeSession(
          parsed.header,
          parsed.entries.map((e) => e.entry),
        );
        expect(jsonLines(exported)).toEqual(jsonLines(migrated));
        expect((jsonLines(exported)[0] as { version: number }).version).toBe(3);
      } else {
        expect(jsonLines(exported)).toEqual(jsonLines(original));
        // v3 lines are stored verbatim, so the text itself survives too.
        expect(exported.trimEnd()).toBe(original.trimEnd());
      }
      const summary = getSessionSummary(lib.db, id);
      expect(summary.entryCount).toBe(parsed.entries.length);
      expect(summary.originalVersion).toBe(parsed.originalVersion);
      expect(summary.malformedCount).toBe(parsed.malformed.length);
    });
  }
});

describe("v1 fixtures", () => {
  for (const name of ["real-large-session.v1.jsonl", "real-before-compaction.v1.jsonl"]) {
    it(`${name}: migrates on import, exports losslessly, re-imports to identical entries`, () => {
      const id = importOne(fixturePath(name));
      const first = loadSessionEntries(lib.db, id);
      expect(first.every((e) => typeof e.id === "string" && e.id.length === 8)).toBe(true);
      expect(first[0]?.parentId).toBeNull();
      expect(first.slice(1).every((e, i) => e.parentId === first[i]?.id)).toBe(true);
      expect(first.some((e) => "firstKeptEntryIndex" in e)).toBe(false);

      const exported = exportSession(lib.db, id).text ?? "";
      const other = makeLibrary();
      try {
        const file = path.join(other.dir, "exported.jsonl");
        fs.writeFileSync(file, exported);
        const report = importPath(other.db, file);
        const again = report.files[0]?.sessionId ?? "";
        expect(again).toBe(id);
        expect(loadSessionEntries(other.db, again)).toEqual(first);
        expect(getSessionSummary(other.db, again).originalVersion).toBe(3);

        // Deterministic ids: importing the original file elsewhere gives the same ids.
        const third = makeLibrary();
        try {
          const r = importPath(third.db, fixturePath(name));
          expect(loadSessionEntries(third.db, r.files[0]?.sessionId ?? "")).toEqual(first);
        } finally {
          third.cleanup();
        }
      } finally {
        other.cleanup();
      }
    });
  }

  it("v1 and v2 lines are stored as written, with only the ids migration adds (CRLF, spaces, non-Latin-1, bad UTF-8)", () => {
    const header = '{"type":"session","id":"odd-v1","timestamp":"t","cwd":"/"}';
    const plain =
      '{ "type": "message", "message": {"role":"user","content":"naïve — 日本 🌳", "n": 1.50} }  ';
    const withId = '{"type":"custom","id":"own","customType":"x"}';
    const compaction = '{"type":"compaction","summary":"s","firstKeptEntryIndex":1,"tokensBefore":1}';
    const hook =
      '{"type":"message","id":"h1","parentId":null,"message":{"role":"hookMessage","content":"é"}}';
    const cases = [
      { name: "v1.jsonl", text: `${[header, plain, withId, compaction].join("\r\n")}\r\n`, bytes: null },
      {
        name: "v2.jsonl",
        text: `${header.replace('"id"', '"version":2,"id"')}\n${hook}\n${withId}`,
        bytes: null,
      },
      // A byte that is no UTF-8 at all: stored as decoded (a replacement character), as in v3 files.
      {
        name: "bad.jsonl",
        text: "",
        bytes: Buffer.concat([
          Buffer.from(`${header}\n{"type":"message","x":"`),
          Buffer.from([0xff]),
          Buffer.from('"}\n'),
        ]),
      },
    ];
    for (const c of cases) {
      const file = path.join(lib.dir, c.name);
      fs.writeFileSync(file, c.bytes ?? c.text);
      const parsed = parseSessionText(fs.readFileSync(file, "utf8"));
      const id = importOne(file);
      const exported = exportSession(lib.db, id).text ?? "";
      if (!parsed.header) throw new Error("no header");
      const expected = serializeSession(
        parsed.header,
        parsed.entries.map((e) => e.entry),
      );
      expect(jsonLines(exported), c.name).toEqual(jsonLines(expected));
      if (c.name === "v1.jsonl") {
        const first = parsed.entries[0]?.entry;
        expect(exported.split("\n")[1]).toBe(
          `${plain.slice(0, plain.lastIndexOf("}"))},"id":"${first?.id}","parentId":null}`,
        );
      }
      if (c.name === "v2.jsonl") expect(exported.split("\n")[2]).toBe(withId);
      if (c.name === "bad.jsonl") expect(exported).toContain("\ufffd");
    }
  });

  it("v3 lines are stored byte for byte, without the \\r of a CRLF ending (spaces and non-Latin-1 text kept)", () => {
    const header = '{"type":"session","version":3,"id":"crlf","timestamp":"t","cwd":"/"}';
    const lines = [
      '  {"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"naïve — 日本 🌳"}}  ',
      '{"type":"custom","id":"b","parentId":"a","customType":"x"}',
    ];
    const file = path.join(lib.dir, "crlf.jsonl");
    fs.writeFileSync(file, `${header}\r\n${lines.join("\r\n")}\r\n`);
    const exported = exportSession(lib.db, importOne(file)).text ?? "";
    expect(exported).toBe(`${header}\n${lines.join("\n")}\n`);
  });

  it("real-before-compaction keeps its compactions pointing at stored entries", () => {
    const id = importOne(fixturePath("real-before-compaction.v1.jsonl"));
    const entries = loadSessionEntries(lib.db, id);
    const ids = new Set(entries.map((e) => e.id));
    const compactions = entries.filter((e) => e.type === "compaction");
    expect(compactions).toHaveLength(2);
    for (const c of compactions) expect(ids.has(String(c.firstKeptEntryId))).toBe(true);
    expect(getSessionSummary(lib.db, id).compactionCount).toBe(2);
  });
});

describe("stored figures", () => {
  it("token estimates: messages count, metadata is 0", () => {
    const id = importOne(fixturePath("tree-01.jsonl"));
    const stored = loadStoredEntries(lib.db, id);
    for (const s of stored) {
      if (
        ["model_change", "thinking_level_change", "label", "custom", "session_info"].includes(s.entry.type)
      ) {
        expect(s.tokens, s.entry.type).toBe(0);
      }
    }
    expect(stored.filter((s) => s.entry.type === "message").every((s) => s.tokens >= 0)).toBe(true);
    expect(stored.some((s) => s.tokens > 100)).toBe(true);
    expect(stored.map((s) => s.line)).toEqual(stored.map((_, i) => i + 2));
  });

  it("dialects and titles: omp copy of tree-01 has the header title, pi uses session_info", () => {
    const report = importPath(lib.db, fixturesDir());
    expect(report.failed).toBe(0);
    const omp = report.files.find((f) => f.path.endsWith("tree-01.omp.jsonl"));
    const pi = report.files.find((f) => f.path.endsWith("tree-01.jsonl"));
    const ompSummary = getSessionSummary(lib.db, omp?.sessionId ?? "");
    const piSummary = getSessionSummary(lib.db, pi?.sessionId ?? "");
    expect(ompSummary.dialect).toBe("omp");
    expect(ompSummary.title).toBe("Refactor the parser (omp dialect copy of tree-01)");
    expect(piSummary.dialect).toBe("pi");
    expect(piSummary.title).toBe("Session refactor branch");
    // Same header id in two files: two sessions, the second one under a derived id.
    expect(ompSummary.id).not.toBe(piSummary.id);
    expect(ompSummary.id.startsWith(piSummary.id)).toBe(true);
    const v1 = report.files.find((f) => f.path.endsWith("real-large-session.v1.jsonl"));
    const v1Summary = getSessionSummary(lib.db, v1?.sessionId ?? "");
    expect(v1Summary.firstMessage).toBe("/mode");
    expect(v1Summary.messageCount).toBe(914);
  });
});
