// Writes other programs make to the library (main/library/outside-changes.ts): the real CLI, run
// as a child process on the serving process's library, is announced with the sessions it
// changed (import, label, compact, delete, undelete); an idle library and read-only commands announce
// nothing; this process's own writes — its connection, its import thread, search indexing —
// are announced once, by whoever made them, never again by the poll.
import fs from "node:fs";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { generateSession } from "../../../bench/generate-session.ts";
import type { EventName, Events } from "../../../core/api/contract.ts";
import { type Api, createApi } from "../../../main/api/dispatch.ts";
import type { AppContext } from "../../../main/api/types.ts";
import { createAppContext } from "../../../main/app-context.ts";
import { getSessionSummary, listSessions } from "../../../main/library/load.ts";
import { type OutsideChanges, watchOutsideChanges } from "../../../main/library/outside-changes.ts";
import { fixturePath } from "../../helpers/fixtures.ts";
import { cliOn, quietFor, waitHeard } from "../../helpers/outside-writer.ts";
import { makeTempDir } from "../store/helpers.ts";

const TREE_00 = "01a2361e-31af-75a7-95c2-9bc5d25359f5";
const TREE_02_FILE = fixturePath("tree-02.jsonl");
const POLL_MS = 100;

type Heard = { [E in EventName]: { name: E; payload: Events[E] } }[EventName];

let tmp: ReturnType<typeof makeTempDir>;
let dbPath: string;
let ctx: AppContext;
let api: Api;
let outside: OutsideChanges;
let heard: Heard[];

beforeEach(() => {
  tmp = makeTempDir();
  dbPath = path.join(tmp.dir, "library.db");
  // As browser mode and the app open it: imports on a thread, search indexed in the background.
  ctx = createAppContext({
    dbPath,
    seedDemo: false,
    loadUserHooks: false,
    importThread: true,
    backgroundSearchIndex: true,
  });
  api = createApi(ctx);
  heard = [];
  ctx.events.subscribe((name, payload) => {
    if (name === "library:changed" || name === "session:changed") heard.push({ name, payload } as Heard);
  });
  outside = watchOutsideChanges(ctx, { intervalMs: POLL_MS });
});

afterEach(async () => {
  outside.close();
  ctx.searchIndexer?.close();
  await ctx.imports.close();
  ctx.db.close();
  tmp.cleanup();
});

/** The real CLI in a process of its own, on the same library. */
const cli = (...args: string[]) => cliOn(dbPath, ...args);

const waitFor = (what: string, test: () => boolean, ms?: number) => waitHeard(what, test, heard, ms);

/** Several polls' time, for what must not happen. */
const quiet = (ms = 6 * POLL_MS) => quietFor(ms);

const libraryChanged = (sessionId: string) =>
  heard.filter((e) => e.name === "library:changed" && e.payload.sessionIds.includes(sessionId));
/** The payloads of session:changed for `sessionId`, in order. */
const sessionChanged = (sessionId: string): Events["session:changed"][] =>
  heard.flatMap((e) =>
    e.name === "session:changed" && e.payload.sessionId === sessionId ? [e.payload] : [],
  );

async function importHere(file: string): Promise<string> {
  const report = await api.call("library:import", { path: file });
  if (!report.ok) throw new Error(report.error.message);
  const id = report.value.files[0]?.sessionId;
  if (!id) throw new Error(`nothing imported from ${file}`);
  return id;
}

describe("writes by another process", () => {
  it("announces a CLI import with the new session's id and view leaf", async () => {
    await cli("import", fixturePath("tree-00.jsonl"));
    await waitFor("library:changed for the imported session", () => libraryChanged(TREE_00).length > 0);
    const viewLeafId = getSessionSummary(ctx.db, TREE_00).viewLeafId;
    expect(viewLeafId).not.toBeNull();
    await waitFor(
      "session:changed with its view leaf",
      () => sessionChanged(TREE_00).at(-1)?.viewLeafId === viewLeafId,
    );
    expect(listSessions(ctx.db).map((s) => s.id)).toContain(TREE_00);
  });

  it("announces a CLI label, delete and undelete of a session this process imported", async () => {
    const id = await importHere(fixturePath("tree-00.jsonl"));
    const leaf = getSessionSummary(ctx.db, id).viewLeafId as string;
    await quiet();
    heard = [];

    await cli("label", id, leaf, "from the terminal");
    await waitFor("session:changed after the label", () => sessionChanged(id).length > 0);
    expect(libraryChanged(id)).toHaveLength(1);

    heard = [];
    await cli("delete", id);
    await waitFor("library:changed after the delete", () => libraryChanged(id).length > 0);
    expect(listSessions(ctx.db).map((s) => s.id)).not.toContain(id);

    heard = [];
    await cli("undelete", id);
    await waitFor("library:changed after the undelete", () => libraryChanged(id).length > 0);
    expect(listSessions(ctx.db).map((s) => s.id)).toContain(id);
  }, 30_000);

  it("announces a CLI compaction with the view leaf it moved to", async () => {
    const id = await importHere(fixturePath("tree-00.jsonl"));
    const before = getSessionSummary(ctx.db, id).viewLeafId;
    await quiet();
    heard = [];
    await cli("compact", id, "--keep-recent-tokens", "100");
    const after = getSessionSummary(ctx.db, id).viewLeafId;
    expect(after).not.toBe(before);
    // However many commits the command made, the last announcement carries where it left the view leaf.
    await waitFor(
      "session:changed with the compaction as view leaf",
      () => sessionChanged(id).at(-1)?.viewLeafId === after,
    );
  }, 30_000);

  it("announces a write by another connection that is not Canopy's (any program)", async () => {
    const id = await importHere(fixturePath("tree-00.jsonl"));
    await quiet();
    heard = [];
    const other = new BetterSqlite3(dbPath);
    try {
      other.prepare("UPDATE sessions SET canopy_title = 'renamed elsewhere' WHERE id = ?").run(id);
    } finally {
      other.close();
    }
    await waitFor("session:changed after the rename", () => sessionChanged(id).length > 0);
    expect(heard.filter((e) => e.name === "library:changed")).toEqual([
      { name: "library:changed", payload: { sessionIds: [id] } },
    ]);
  });
});

describe("nothing to announce", () => {
  it("stays silent on an idle library, after read-only commands and a re-import of an unchanged file", async () => {
    const id = await importHere(fixturePath("tree-00.jsonl"));
    await quiet();
    heard = [];
    await quiet(10 * POLL_MS);
    await cli("list");
    await cli("show", id);
    await cli("context", id, "--json");
    // Importing a file that has not changed changes nothing.
    await cli("import", fixturePath("tree-00.jsonl"));
    await quiet();
    expect(heard).toEqual([]);
  }, 30_000);

  it("announces this process's own writes once, and another process's only", async () => {
    const a = await importHere(fixturePath("tree-00.jsonl"));
    const b = await importHere(TREE_02_FILE);
    await quiet();
    heard = [];
    // This connection: the handler announces it.
    const labelled = await api.call("edits:label", {
      sessionId: a,
      targetId: getSessionSummary(ctx.db, a).viewLeafId as string,
      label: "here",
    });
    expect(labelled.ok).toBe(true);
    // Another process, on another session: the poll finds both writes and announces only that one.
    await cli("label", b, getSessionSummary(ctx.db, b).viewLeafId as string, "there");
    await waitFor("session:changed for the CLI's label", () => sessionChanged(b).length > 0);
    await quiet();
    expect(sessionChanged(a)).toHaveLength(1);
    expect(libraryChanged(a)).toHaveLength(1);
    expect(sessionChanged(b)).toHaveLength(1);
  }, 30_000);

  it("does not announce again what the import thread stored, nor its search indexing", async () => {
    // Large enough (> 8 MB) to be imported on the import thread, which then indexes it for search.
    const file = path.join(tmp.dir, "big.jsonl");
    fs.writeFileSync(file, generateSession(5000).text);
    expect(fs.statSync(file).size).toBeGreaterThan(8 * 1024 * 1024);
    const id = await importHere(file);
    await ctx.imports.searchIndexed();
    await quiet();
    expect(heard.filter((e) => e.name === "library:changed")).toEqual([
      { name: "library:changed", payload: { sessionIds: [id] } },
    ]);
    expect(sessionChanged(id)).toEqual([]);
  }, 60_000);
});

describe("a check that fails", () => {
  it("says so in one line, once, and finds the change when the library reads again", async () => {
    const id = await importHere(fixturePath("tree-00.jsonl"));
    const logged: string[] = [];
    const manual = watchOutsideChanges(ctx, { intervalMs: 3_600_000, log: (line) => logged.push(line) });
    try {
      const other = new BetterSqlite3(dbPath);
      try {
        other.exec("ALTER TABLE session_changes RENAME TO session_changes_away");
        expect([manual.check(), manual.check(), manual.check()]).toEqual([false, false, false]);
        expect(logged).toHaveLength(1);
        expect(logged[0]).toMatch(
          /^could not look for changes other programs made to the library: .*session_changes/,
        );
        expect(logged[0]).not.toContain("\n");
        other.exec("ALTER TABLE session_changes_away RENAME TO session_changes");
        other.prepare("UPDATE sessions SET canopy_title = 'back' WHERE id = ?").run(id);
      } finally {
        other.close();
      }
      heard = [];
      expect(manual.check()).toBe(true);
      expect(sessionChanged(id)).toHaveLength(1);
    } finally {
      manual.close();
    }
  });
});
