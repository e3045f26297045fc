// Full-text indexing after a large import (main/library/search-indexer.ts, search-request.ts):
// the app fills the index by itself in short slices while requests are quiet, a search meanwhile
// answers from what is indexed and says how far indexing is, and a request that comes during
// indexing is never held up by more than the slice that is running.
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { searchIndexingNote } from "../../../core/api/contract.ts";
import { createApi } from "../../../main/api/dispatch.ts";
import { createAppContext } from "../../../main/app-context.ts";
import { importPath } from "../../../main/library/import.ts";
import { indexPendingSearchText, indexSearchSlice, searchMessages } from "../../../main/library/search.ts";
import { MAX_SLICE_ROWS, QUIET_MS } from "../../../main/library/search-indexer.ts";
import { SEARCH_CATCH_UP_ROWS } from "../../../main/library/search-request.ts";
import { startBrowserMode } from "../../../main/serve.ts";
import { startBrowserServer } from "../../../main/server/index.ts";
import { countPendingText } from "../../../main/store/repos/search.ts";
import { openDatabase } from "../../../main/store/open.ts";
import { postChannel } from "../../helpers/post-channel.ts";
import { type Library, makeLibrary } from "./helpers.ts";

let lib: Library;
beforeEach(() => {
  lib = makeLibrary();
});
afterEach(() => lib.cleanup());

/** A session of `count` short user messages; every 10th says "wombat". */
function writeSession(file: string, id: string, count: number): void {
  const lines = [
    JSON.stringify({ type: "session", version: 3, id, timestamp: "2026-01-01T00:00:00.000Z", cwd: "/w" }),
  ];
  for (let i = 0; i < count; i++) {
    const text = i % 10 === 0 ? `wombat number ${i} digs` : `note ${i} about the parser`;
    const entry = {
      type: "message",
      id: `${id}-${i}`,
      parentId: i === 0 ? null : `${id}-${i - 1}`,
      timestamp: "t",
    };
    lines.push(JSON.stringify({ ...entry, message: { role: "user", content: text, timestamp: i } }));
  }
  fs.writeFileSync(file, `${lines.join("\n")}\n`);
}

/** The app's context and API on the test's library, indexing in the background. */
function app() {
  lib.db.close();
  const ctx = createAppContext({
    dbPath: lib.dbFile,
    seedDemo: false,
    loadUserHooks: false,
    backgroundSearchIndex: true,
  });
  return { ctx, api: createApi(ctx) };
}

/**
 * app() served over HTTP (a stub page in the library's folder), and the slices its indexer ran
 * while each request was answered: from reading the request to its answer's `end` event.
 */
async function servedWhileIndexing(end: "finish" | "close") {
  const { ctx, api } = app();
  const indexer = ctx.searchIndexer;
  if (indexer === null) throw new Error("no indexer");
  const renderer = path.join(lib.dir, "renderer");
  fs.mkdirSync(renderer);
  fs.writeFileSync(path.join(renderer, "index.html"), "<!doctype html><title>Canopy</title>");
  const server = await startBrowserServer({ api, rendererDir: renderer });
  const during: number[] = [];
  server.server.prependListener("request", (_req, res) => {
    const before = indexer.stats.slices;
    res.on(end, () => during.push(indexer.stats.slices - before));
  });
  return { ctx, indexer, server, during };
}

async function until(check: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const textRows = (db: { prepare(sql: string): { pluck(): { get(): unknown } } }) =>
  db.prepare("SELECT count(*) FROM entry_text").pluck().get() as number;

describe("background search indexing", () => {
  it("after an import in browser mode, the index fills by itself, with no request, in slices", async () => {
    const file = path.join(lib.dir, "big.jsonl");
    writeSession(file, "big", 6000);
    lib.db.close();
    const renderer = path.join(lib.dir, "renderer");
    fs.mkdirSync(renderer);
    fs.writeFileSync(path.join(renderer, "index.html"), "<!doctype html><title>Canopy</title>");
    const mode = await startBrowserMode({
      dbPath: lib.dbFile,
      rendererDir: renderer,
      seedDemo: false,
      watch: false,
    });
    const reader = openDatabase(lib.dbFile);
    try {
      const response = await postChannel(mode, "library:import", JSON.stringify({ path: file }));
      expect(((await response.json()) as { ok: boolean }).ok).toBe(true);
      expect(countPendingText(reader)).toBeGreaterThan(SEARCH_CATCH_UP_ROWS);
      // No request from here on.
      await until(() => countPendingText(reader) === 0, "the index caught up");
      // The same index as catching up in one go gives.
      const other = makeLibrary();
      try {
        importPath(other.db, file);
        indexPendingSearchText(other.db);
        expect(textRows(reader)).toBe(textRows(other.db));
      } finally {
        other.cleanup();
      }
    } finally {
      reader.close();
      await mode.stop();
    }
  });

  it("at start-up, what an earlier run or the CLI left unindexed is indexed in slices", async () => {
    const file = path.join(lib.dir, "cli.jsonl");
    writeSession(file, "cli", 5000);
    importPath(lib.db, file);
    const { ctx } = app();
    try {
      await ctx.searchIndexer?.whenIndexed();
      expect(countPendingText(ctx.db)).toBe(0);
      const stats = ctx.searchIndexer?.stats;
      expect(stats?.rows).toBe(5000);
      expect(stats?.slices).toBeGreaterThan(1);
      expect(stats?.maxSliceRows).toBeLessThanOrEqual(MAX_SLICE_ROWS);
      console.log(`5,000 entries: ${stats?.slices} slices, longest ${stats?.maxSliceMs.toFixed(1)} ms`);
    } finally {
      ctx.searchIndexer?.close();
      ctx.db.close();
    }
  });

  it("a search while the index catches up answers from what is indexed and says how far it is", async () => {
    const file = path.join(lib.dir, "big.jsonl");
    writeSession(file, "big", 5000);
    importPath(lib.db, file);
    // Part is indexed already (as after a few slices).
    indexPendingSearchText(lib.db, { maxRows: 1000 });
    const { ctx, api } = app();
    try {
      const found = await api.call("library:search", { query: "wombat", limit: 500 });
      if (!found.ok) throw new Error(found.error.message);
      const { hits, indexing } = found.value;
      expect(indexing).toEqual({ indexed: 1000, total: 5000 });
      expect(searchIndexingNote(indexing as { indexed: number; total: number })).toBe(
        "Still indexing for search (20% done): these results cover only the messages indexed so far.",
      );
      // The wombats of the first 1000 entries, not one of the others.
      expect(hits).toHaveLength(100);
      expect(hits.every((hit) => Number(hit.entryId.split("-")[1]) < 1000)).toBe(true);

      await ctx.searchIndexer?.whenIndexed();
      const later = await api.call("library:search", { query: "wombat", limit: 500 });
      expect(later.ok && later.value.indexing).toBeNull();
      expect(later.ok && later.value.hits).toHaveLength(500);
    } finally {
      ctx.searchIndexer?.close();
      ctx.db.close();
    }
  });

  it("a search with little left to index indexes it first and answers in full", async () => {
    const file = path.join(lib.dir, "small.jsonl");
    writeSession(file, "small", SEARCH_CATCH_UP_ROWS);
    importPath(lib.db, file);
    const { ctx, api } = app();
    try {
      const found = await api.call("library:search", { query: "wombat", limit: 500 });
      expect(found.ok && found.value).toMatchObject({ indexing: null });
      expect(found.ok && found.value.hits).toHaveLength(SEARCH_CATCH_UP_ROWS / 10);
    } finally {
      ctx.searchIndexer?.close();
      ctx.db.close();
    }
  });

  it("a search while writes are held (the import thread holds the write lock) indexes nothing itself", async () => {
    const file = path.join(lib.dir, "small.jsonl");
    writeSession(file, "small", SEARCH_CATCH_UP_ROWS);
    importPath(lib.db, file);
    const { ctx, api } = app();
    let letGo = () => {};
    ctx.writes.hold(new Promise<void>((resolve) => (letGo = resolve)));
    try {
      const changes = ctx.db.prepare("SELECT total_changes() AS n").get() as { n: number };
      const found = await api.call("library:search", { query: "wombat", limit: 500 });
      // Catching up would have waited for the other connection's write lock: it answers from
      // what is indexed and says how far indexing is instead.
      expect(found.ok && found.value.indexing).not.toBeNull();
      expect((ctx.db.prepare("SELECT total_changes() AS n").get() as { n: number }).n).toBe(changes.n);
    } finally {
      letGo();
      ctx.searchIndexer?.close();
      ctx.db.close();
    }
  });

  it("a request that comes during idle indexing waits for no more than the slice running", async () => {
    const file = path.join(lib.dir, "big.jsonl");
    writeSession(file, "big", 60_000);
    importPath(lib.db, file);
    // Slices that start between the server reading a request and its answer leaving.
    const { ctx, indexer, server, during } = await servedWhileIndexing("finish");
    try {
      let requests = 0;
      let slicesBetween = 0;
      while (indexer.running && requests < 20) {
        const before = indexer.stats.slices;
        await new Promise((resolve) => setTimeout(resolve, QUIET_MS * 3));
        slicesBetween += indexer.stats.slices - before;
        const response = await postChannel(server, "library:list", "{}");
        expect(((await response.json()) as { ok: boolean }).ok).toBe(true);
        requests++;
      }
      expect(requests).toBeGreaterThanOrEqual(3);
      // Indexing went on between the requests…
      expect(slicesBetween).toBeGreaterThan(0);
      // …and no more than one slice ever ran while one was being answered.
      expect(during).toHaveLength(requests);
      expect(Math.max(...during)).toBeLessThanOrEqual(1);
      const { slices, maxSliceMs, maxSliceRows } = indexer.stats;
      expect(maxSliceRows).toBeLessThanOrEqual(MAX_SLICE_ROWS);
      console.log(
        `${requests} requests during indexing, slices while answering: ${during.join(",")}; ` +
          `${slices} slices so far, longest ${maxSliceMs.toFixed(1)} ms (${maxSliceRows} entries)`,
      );
    } finally {
      await server.close();
      indexer.close();
      ctx.db.close();
    }
  });
});

describe("background search indexing and a large answer", () => {
  it("runs no slice while the answer leaves its socket, however slowly the page reads it", async () => {
    const file = path.join(lib.dir, "big.jsonl");
    writeSession(file, "big", 60_000);
    const sessionId = importPath(lib.db, file).files[0]?.sessionId as string;
    // Slices that start between the server reading the request and its answer being out.
    const { ctx, indexer, server, during } = await servedWhileIndexing("close");
    try {
      await until(() => indexer.stats.slices > 0, "indexing started");
      const response = await postChannel(server, "session:get", JSON.stringify({ sessionId }));
      // The whole session (~15 MB): more than a socket holds. Read slowly at first, as a busy page does.
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      let bytes = 0;
      for (let chunk = 0; ; chunk++) {
        if (chunk < 6) await new Promise((resolve) => setTimeout(resolve, QUIET_MS * 3));
        const { done, value } = await reader.read();
        if (done) break;
        bytes += value.length;
      }
      expect(bytes).toBeGreaterThan(10_000_000);
      await until(() => during.length === 1, "the answer is out");
      // At most the slice that may start while the request's body is read…
      expect(during[0]).toBeLessThanOrEqual(1);
      // …though entries were waiting all along.
      expect(indexer.running).toBe(true);
      // And indexing goes on once it is out.
      const after = indexer.stats.slices;
      await until(() => indexer.stats.slices > after, "indexing went on");
    } finally {
      await server.close();
      indexer.close();
      ctx.db.close();
    }
  });
});

describe("a slice's size", () => {
  it("stops at its time budget, checked every 32 entries, and never passes its row limit", () => {
    const file = path.join(lib.dir, "s.jsonl");
    writeSession(file, "s", 1000);
    importPath(lib.db, file);
    // A clock that moves 5 ms each time it is read: started, then a read after each batch.
    let clock = 0;
    const now = () => (clock += 5);
    expect(indexSearchSlice(lib.db, 2000, { budgetMs: 20, now })).toEqual({ indexed: 4 * 32, more: true });
    expect(indexSearchSlice(lib.db, 50, { budgetMs: 1000, now })).toEqual({ indexed: 50, more: true });
    // A budget already spent still indexes one batch (the index always moves on).
    expect(indexSearchSlice(lib.db, 2000, { budgetMs: 0, now })).toEqual({ indexed: 32, more: true });
    // Without a budget, the row limit alone; a short slice means nothing is left.
    expect(indexSearchSlice(lib.db, 2000)).toEqual({ indexed: 1000 - 128 - 50 - 32, more: false });
    expect(indexSearchSlice(lib.db, 2000, { budgetMs: 20, now })).toEqual({ indexed: 0, more: false });
    expect(searchMessages(lib.db, "wombat", 500, { catchUp: false })).toHaveLength(100);
  });
});
