// Search: the FTS index catches up with imports behind a watermark, follows re-imports and
// deletions, cuts snippets from the entry text, and never throws on odd input.
import fs from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MAX_SEARCH_HITS } from "../../../core/api/schemas.ts";
import { importPath } from "../../../main/library/import.ts";
import { indexPendingSearchText, makeSnippet, searchMessages } from "../../../main/library/search.ts";
import { deleteSession } from "../../../main/store/repos/sessions.ts";
import { copyFixture, type Library, makeLibrary, nonBlankLines } from "./helpers.ts";

let lib: Library;
beforeEach(() => {
  lib = makeLibrary();
});
afterEach(() => lib.cleanup());

const plan = (sql: string, ...params: unknown[]): string =>
  (lib.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[])
    .map((r) => r.detail)
    .join("\n");

describe("search", () => {
  it("finds words from the fixtures, with snippets, and never throws on odd input", () => {
    importPath(lib.db, copyFixture("real-large-session.v1.jsonl", lib.dir));
    importPath(lib.db, copyFixture("tree-01.omp.jsonl", lib.dir));
    const hits = searchMessages(lib.db, "parser", 5);
    expect(hits.length).toBeGreaterThan(0);
    expect(hits[0]?.snippet).toMatch(/\[parser/i);
    expect(hits[0]?.sessionTitle).toBe("Refactor the parser (omp dialect copy of tree-01)");
    const real = searchMessages(lib.db, "coding-agent", 5);
    expect(real.length).toBeGreaterThan(0);
    expect(real.every((h) => h.sessionId === "d703a1a9-1b7b-4fb1-b512-c9738b1fe617")).toBe(true);
    expect(real.every((h) => h.entryId.length === 8 && h.role)).toBe(true);
    for (const q of ['"unbalanced', "AND", "NOT x", "(", "a:b", "***", "", "NEAR(a b)"]) {
      expect(() => searchMessages(lib.db, q)).not.toThrow();
    }
    expect(searchMessages(lib.db, "")).toEqual([]);
    expect(
      searchMessages(lib.db, "parser", 5, { sessionId: "d703a1a9-1b7b-4fb1-b512-c9738b1fe617" }),
    ).toEqual([]);
  });

  it("gives as many hits as asked for, up to the CLI's and the API's limit of 1000", () => {
    // 700 messages holding "needle": `search needle --limit 1000` got 500 of them.
    const lines = [
      { type: "session", version: 3, id: "many", timestamp: "2026-12-01T00:00:00.000Z", cwd: "/w" },
      ...Array.from({ length: 700 }, (_, i) => ({
        type: "message",
        id: `m${i}`,
        parentId: i === 0 ? null : `m${i - 1}`,
        timestamp: "2026-12-01T00:00:01.000Z",
        message: { role: "user", content: `needle number ${i}`, timestamp: 1 },
      })),
    ];
    const file = `${lib.dir}/many.jsonl`;
    fs.writeFileSync(file, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
    importPath(lib.db, file);
    expect(searchMessages(lib.db, "needle", MAX_SEARCH_HITS).length).toBe(700);
    expect(searchMessages(lib.db, "needle", 20).length).toBe(20);
  });

  it("imports do not tokenize; the index catches up in slices behind a watermark", () => {
    importPath(lib.db, copyFixture("tree-03.jsonl", lib.dir));
    expect(lib.db.prepare("SELECT count(*) FROM entry_text").pluck().get()).toBe(0);
    const first = indexPendingSearchText(lib.db, { maxRows: 100, chunkRows: 40 });
    expect(first).toEqual({ indexed: 100, remaining: 549 });
    expect(indexPendingSearchText(lib.db)).toEqual({ indexed: 549, remaining: 0 });
    expect(indexPendingSearchText(lib.db)).toEqual({ indexed: 0, remaining: 0 });
    expect(searchMessages(lib.db, "summary", 3, { catchUp: false }).length).toBeGreaterThan(0);
  });

  it("follows appends, provisional lines and deleted sessions", () => {
    const file = copyFixture("tree-00.jsonl", lib.dir);
    const lines = nonBlankLines(fs.readFileSync(file, "utf8"));
    fs.writeFileSync(file, `${lines.join("\n")}\n`);
    const id = importPath(lib.db, file).files[0]?.sessionId ?? "";
    const leaf = (JSON.parse(lines.at(-1) ?? "") as { id: string }).id;
    const entry = (n: number, text: string) =>
      JSON.stringify({
        type: "message",
        id: `feed000${n}`,
        parentId: n === 1 ? leaf : `feed000${n - 1}`,
        timestamp: "2026-12-09T00:00:00.000Z",
        message: { role: "user", content: text, timestamp: 1 },
      });
    // A line being written when we import: provisional; the search sees its text once complete.
    const pending = entry(1, "zanzibar quokka");
    fs.appendFileSync(file, pending.slice(0, 30));
    importPath(lib.db, file);
    expect(searchMessages(lib.db, "quokka")).toEqual([]);
    fs.appendFileSync(file, `${pending.slice(30)}\n${entry(2, "walrus quokka")}\n`);
    importPath(lib.db, file);
    const hits = searchMessages(lib.db, "quokka");
    expect(hits.map((h) => h.entryId).sort()).toEqual(["feed0001", "feed0002"]);
    expect(hits.find((h) => h.entryId === "feed0002")?.snippet).toBe("walrus [quokka]");
    deleteSession(lib.db, id);
    expect(searchMessages(lib.db, "quokka")).toEqual([]);
  });

  it("cuts snippets around the first match and marks every match", () => {
    const text = `${"lorem ".repeat(60)}the parser parses\n\nparsers ${"ipsum ".repeat(60)}`;
    const snippet = makeSnippet(text, ["pars"], ["<", ">"], 80);
    expect(snippet.startsWith("…")).toBe(true);
    expect(snippet.endsWith("…")).toBe(true);
    expect(snippet).toContain("the <parser> <parses> <parsers>");
    expect(snippet.length).toBeLessThanOrEqual(82);
    expect(makeSnippet("short text", [], ["[", "]"])).toBe("short text");
  });

  it("the search query uses the FTS index and joins by primary keys, also with statistics", () => {
    importPath(lib.db, copyFixture("tree-02.jsonl", lib.dir));
    lib.db.exec("ANALYZE");
    const p = plan(
      `SELECT e.pk FROM entry_text AS t JOIN entries AS e ON e.pk = t.rowid LEFT JOIN entry_json AS j ON j.pk = e.pk
       JOIN sessions AS s ON s.sid = e.sid WHERE entry_text MATCH ? ORDER BY t.rank LIMIT 5`,
      '"x"',
    );
    expect(p).toMatch(/VIRTUAL TABLE INDEX/);
    // (With one session in the table the planner may simply scan `sessions`; entries never.)
    expect(p).not.toMatch(/SCAN (e|j)\b/);
    expect(plan("SELECT pk FROM entries WHERE sid = ? AND id = ? ORDER BY seq DESC LIMIT 1", 1, "a")).toMatch(
      /entries_by_id/,
    );
    expect(
      plan("SELECT pk, id, parent_id, type, role FROM entries WHERE sid = ? ORDER BY seq", 1),
    ).not.toMatch(/TEMP B-TREE/);
  });
});
