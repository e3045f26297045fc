// Search in Chinese, Japanese and Korean: a word inside a run of CJK characters (no spaces) is
// found, with its snippet marked; a library indexed before CJK characters became words of
// their own is re-indexed in the background, with progress, and Latin search meanwhile is whole.
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SessionEntry } from "../../../core/session/entries.ts";
import { createApi } from "../../../main/api/dispatch.ts";
import { createAppContext } from "../../../main/app-context.ts";
import { searchTextOf } from "../../../main/library/entry-rows.ts";
import { importPath } from "../../../main/library/import.ts";
import {
  indexPendingSearchText,
  makeSnippet,
  searchIndexProgress,
  searchMessages,
} from "../../../main/library/search.ts";
import { schemaVersion } from "../../../main/store/migrations/index.ts";
import { pendingTextRows } from "../../../main/store/repos/search.ts";
import { dropSchema11 } from "../store/helpers.ts";
import { copyFixture, type Library, makeLibrary, nonBlankLines } from "./helpers.ts";

let lib: Library;
beforeEach(() => {
  lib = makeLibrary();
});
afterEach(() => lib.cleanup());

const MESSAGES: Record<string, string> = {
  ja1: "このテキストを検索できるようにしてください。",
  ja2: "ひらがなとカタカナの混じった文章です",
  zh1: "我们需要一个全文搜索功能来查找会话",
  zh2: "请把这个函数改成异步的",
  ko1: "세션 검색을 고쳐 주세요",
  ko2: "전문검색 기능이 필요합니다",
  mix1: "Reactコンポーネントのテストを書いて",
  mix2: "把 zanzibar 的错误信息改成中文",
  latin: "the zanzibar parser parses the tokens",
};

/** tree-00 with one user message per MESSAGES entry appended; the session id. */
function importCjk(db = lib.db): string {
  const file = copyFixture("tree-00.jsonl", lib.dir);
  const lines = nonBlankLines(fs.readFileSync(file, "utf8"));
  let parent = (JSON.parse(lines.at(-1) ?? "") as { id: string }).id;
  for (const [id, text] of Object.entries(MESSAGES)) {
    const entryId = `${id}`.padEnd(8, "0").slice(0, 8);
    lines.push(
      JSON.stringify({
        type: "message",
        id: entryId,
        parentId: parent,
        timestamp: "2026-12-09T00:00:00.000Z",
        message: { role: "user", content: text, timestamp: 1 },
      }),
    );
    parent = entryId;
  }
  fs.writeFileSync(file, `${lines.join("\n")}\n`);
  return importPath(db, file).files[0]?.sessionId ?? "";
}

const found = (query: string, db = lib.db): string[] =>
  searchMessages(db, query, 50)
    .map((h) => h.entryId.replace(/0+$/, ""))
    .sort();

describe("search in CJK text", () => {
  it("finds a Japanese word inside a sentence, in kana and in kanji", () => {
    importCjk();
    expect(found("テキスト")).toEqual(["ja1"]);
    expect(found("検索")).toEqual(["ja1"]);
    expect(found("カタカナ")).toEqual(["ja2"]);
    expect(found("文章")).toEqual(["ja2"]);
    // Order matters: the characters must be adjacent, in this order.
    expect(found("索検")).toEqual([]);
  });

  it("finds a Chinese word of two characters inside a sentence", () => {
    importCjk();
    expect(found("搜索")).toEqual(["zh1"]);
    expect(found("函数")).toEqual(["zh2"]);
    expect(found("会话")).toEqual(["zh1"]);
    expect(found("异步 函数")).toEqual(["zh2"]);
  });

  it("finds a Korean word with a particle attached and inside a compound", () => {
    importCjk();
    expect(found("검색")).toEqual(["ko1", "ko2"]);
    expect(found("검색 세션")).toEqual(["ko1"]);
    expect(found("기능")).toEqual(["ko2"]);
  });

  it("finds mixed CJK and Latin text, and one CJK character alone", () => {
    importCjk();
    expect(found("React")).toEqual(["mix1"]);
    expect(found("コンポーネント")).toEqual(["mix1"]);
    expect(found("Reactコンポーネント")).toEqual(["mix1"]);
    expect(found("zanzibar 中文")).toEqual(["mix2"]);
    expect(found("zanzibar")).toEqual(["latin", "mix2"]);
    expect(found("索")).toEqual(["ja1", "zh1"]);
    expect(found("검")).toEqual(["ko1", "ko2"]);
  });

  it("marks the matched CJK text in the snippet, and only it", () => {
    importCjk();
    const snippet = (q: string) => searchMessages(lib.db, q, 5, { highlight: ["<", ">"] })[0]?.snippet;
    expect(snippet("テキスト")).toBe("この<テキスト>を検索できるようにしてください。");
    expect(snippet("搜索")).toBe("我们需要一个全文<搜索>功能来查找会话");
    expect(snippet("검색 세션")).toBe("<세션> <검색>을 고쳐 주세요");
    expect(snippet("Reactコンポーネント")).toBe("<Reactコンポーネント>のテストを書いて");
    expect(snippet("コンポ")).toBe("React<コンポ>ーネントのテストを書いて");
    expect(snippet("zanzibar 中文")).toBe("把 <zanzibar> 的错误信息改成<中文>");
  });

  it("cuts a long CJK snippet around the match (no spaces to cut at)", () => {
    const text = `${"漢字".repeat(100)}検索${"かな".repeat(100)} end`;
    const snippet = makeSnippet(text, ["検索"], ["[", "]"], 80);
    expect(snippet).toContain("[検索]");
    expect(snippet.startsWith("…")).toBe(true);
    expect(snippet.endsWith("…")).toBe(true);
    expect(snippet.length).toBeLessThanOrEqual(80 + 2 + 2);
  });
});

describe("a library indexed before CJK characters were words", () => {
  it("re-indexes entries with CJK text in the background after the upgrade, with progress", () => {
    importCjk();
    indexTheOldWay(lib);
    expect(found("テキスト")).toEqual([]);
    const db = lib.reopen();
    expect(schemaVersion(db)).toBeGreaterThanOrEqual(10);
    // Not silent: the search says the index is being filled.
    const progress = searchIndexProgress(db);
    expect(progress).not.toBeNull();
    expect(progress?.indexed).toBeLessThan(progress?.total ?? 0);
    // Latin words stay findable throughout (the old rows are replaced, not dropped).
    expect(searchMessages(db, "zanzibar", 50, { catchUp: false }).length).toBe(2);
    const first = indexPendingSearchText(db, { maxRows: 20, chunkRows: 10 });
    expect(first.indexed).toBe(20);
    expect(first.remaining).toBeGreaterThan(0);
    expect(searchMessages(db, "zanzibar", 50, { catchUp: false }).length).toBe(2);
    indexPendingSearchText(db);
    expect(searchIndexProgress(db)).toBeNull();
    expect(found("テキスト", db)).toEqual(["ja1"]);
    expect(found("搜索", db)).toEqual(["zh1"]);
    expect(found("검색", db)).toEqual(["ko1", "ko2"]);
    expect(found("zanzibar", db)).toEqual(["latin", "mix2"]);
    // Each entry is in the index once.
    const count = db
      .prepare("SELECT count(*) FROM entry_text WHERE entry_text MATCH 'zanzibar'")
      .pluck()
      .get();
    expect(count).toBe(2);
  });

  it("in the app, the re-check runs in the background while a search says how far it is", async () => {
    // 3000 entries to re-check: more than a search indexes before answering.
    const file = path.join(lib.dir, "big.jsonl");
    const id = "b16b16b1-0000-4000-8000-000000000001";
    const lines = [
      JSON.stringify({ type: "session", version: 3, id, timestamp: "2026-01-01T00:00:00.000Z", cwd: "/w" }),
    ];
    for (let i = 0; i < 3000; i++) {
      const text = i % 100 === 0 ? `第${i}回：全文検索のテストです` : `note ${i} about the zanzibar parser`;
      const entry = { type: "message", id: `e${i}`, parentId: i === 0 ? null : `e${i - 1}`, timestamp: "t" };
      lines.push(JSON.stringify({ ...entry, message: { role: "user", content: text, timestamp: i } }));
    }
    fs.writeFileSync(file, `${lines.join("\n")}\n`);
    importPath(lib.db, file);
    indexTheOldWay(lib);
    lib.db.close();

    const ctx = createAppContext({
      dbPath: lib.dbFile,
      seedDemo: false,
      loadUserHooks: false,
      backgroundSearchIndex: true,
    });
    try {
      const api = createApi(ctx);
      const first = await api.call("library:search", { query: "検索", limit: 100 });
      if (!first.ok) throw new Error(first.error.message);
      expect(first.value.indexing).not.toBeNull();
      expect(first.value.indexing?.total).toBe(3000);
      const latin = await api.call("library:search", { query: "zanzibar", limit: 500 });
      expect(latin.ok && latin.value.hits.length).toBe(500);
      await ctx.searchIndexer?.whenIndexed();
      const done = await api.call("library:search", { query: "検索", limit: 100, highlight: ["<", ">"] });
      if (!done.ok) throw new Error(done.error.message);
      expect(done.value.indexing).toBeNull();
      expect(done.value.hits.length).toBe(30);
      expect(done.value.hits.every((h) => /^第\d+回：全文<検索>のテストです$/u.test(h.snippet))).toBe(true);
    } finally {
      ctx.searchIndexer?.close();
      await ctx.imports.close();
      ctx.db.close();
    }
  });

  it("a library with nothing indexed yet has nothing to re-check", () => {
    importCjk();
    dropSchema11(lib.db);
    lib.db.pragma("user_version = 9");
    const db = lib.reopen();
    const total = db.prepare("SELECT count(*) FROM entries").pluck().get();
    expect(searchIndexProgress(db)).toEqual({ indexed: 0, total });
    indexPendingSearchText(db);
    expect(found("テキスト", db)).toEqual(["ja1"]);
  });
});

/**
 * A library as Canopy before schema 10 left it: everything indexed, the index holding each
 * entry's text as it is (a run of CJK characters one word), schema version 9.
 */
function indexTheOldWay(l: Library): void {
  indexPendingSearchText(l.db);
  const texts = pendingTextRows(l.db, 0, 1_000_000)
    .map(([pk, json]): [number, string] => [pk, searchTextOf(JSON.parse(json) as SessionEntry)])
    .filter(([, text]) => text !== "");
  l.db.exec("DELETE FROM entry_text");
  const insert = l.db.prepare("INSERT INTO entry_text (rowid, text) VALUES (?, ?)");
  for (const [pk, text] of texts) insert.run(pk, text);
  l.db.exec("DELETE FROM store_meta WHERE key LIKE 'search.cjk%'");
  dropSchema11(l.db);
  l.db.pragma("user_version = 9");
}
