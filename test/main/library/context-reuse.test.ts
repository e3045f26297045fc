// context:get on neighbouring leaves (arrow moves in the tree) reuses what the previous call read
// and parsed (main/library/context-reuse.ts): on a long path it parsed all ~29,000 entries on
// every move. What is reused must give exactly a fresh load's answer, for any order of leaves,
// and be let go on any write to the library, by this connection or another.
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { generateSession } from "../../../bench/generate-session.ts";
import { type Api, createApi } from "../../../main/api/dispatch.ts";
import { createAppContext } from "../../../main/app-context.ts";
import { loadContextEntries } from "../../../main/library/context-path.ts";
import { forgetPathReuse } from "../../../main/library/context-reuse.ts";
import { importPath } from "../../../main/library/import.ts";
import { loadSessionEntries, requireAnySession } from "../../../main/library/load.ts";
import { openDatabase } from "../../../main/store/open.ts";
import { replaceEntryJson } from "../../../main/store/repos/entry-json.ts";
import { writeTransaction } from "../../../main/store/transactions.ts";
import { fixturePath } from "../../helpers/fixtures.ts";
import { type Library, makeLibrary } from "./helpers.ts";

let lib: Library;
beforeEach(() => {
  lib = makeLibrary();
});
afterEach(() => {
  forgetPathReuse(lib.db);
  lib.cleanup();
});

/** A session of `count` entries without compactions: every leaf's context is its whole path. */
function importLinear(count: number): { id: string; ids: string[] } {
  const file = path.join(lib.dir, "linear.jsonl");
  fs.writeFileSync(file, generateSession(count, { compactAtTokens: 1e12 }).text);
  const id = importPath(lib.db, file).files[0]?.sessionId ?? "";
  return { id, ids: loadSessionEntries(lib.db, id).map((entry) => entry.id) };
}

/** Freezes `value` and everything in it: a write to it then throws (modules are strict). */
function deepFreeze(value: unknown, seen = new Set<unknown>()): void {
  if (value === null || typeof value !== "object" || seen.has(value)) return;
  seen.add(value);
  for (const item of Object.values(value)) deepFreeze(item, seen);
  Object.freeze(value);
}

describe("context:get reusing the previous call's entries", () => {
  it("a neighbouring leaf parses only the entries the previous path did not have", () => {
    const { id, ids } = importLinear(600);
    const leaf = ids.at(-1) as string;
    const first = loadContextEntries(lib.db, id, leaf, { reuse: true });
    expect(first.parsed).toBeGreaterThan(500);
    // Up one (the parent's path is part of the leaf's), then back down one.
    expect(loadContextEntries(lib.db, id, ids.at(-2), { reuse: true }).parsed).toBe(0);
    expect(loadContextEntries(lib.db, id, leaf, { reuse: true }).parsed).toBe(1);
    // Without reuse (other callers), every entry is parsed as before.
    expect(loadContextEntries(lib.db, id, leaf).parsed).toBe(first.parsed);
  });

  for (const name of ["tree-01.jsonl", "tree-02.jsonl", "real-before-compaction.v1.jsonl"]) {
    it(`${name}: every leaf, asked in tree order and in jumps, loads what a fresh load does`, () => {
      const id = importPath(lib.db, fixturePath(name)).files[0]?.sessionId ?? "";
      const all = loadSessionEntries(lib.db, id).map((entry) => entry.id);
      // Runs of neighbours at 8 places (file order walks up and down branches), then jumps.
      const runs: string[] = [];
      for (let at = 0; at < all.length; at += Math.ceil(all.length / 8)) runs.push(...all.slice(at, at + 20));
      const jumps = all.filter((_, i) => i % Math.ceil(all.length / 40) === 0).reverse();
      const order = [...runs, ...jumps, null, all[0] ?? null];
      for (const leaf of order) {
        const reused = loadContextEntries(lib.db, id, leaf, { reuse: true });
        const fresh = loadContextEntries(lib.db, id, leaf);
        // (The tree index is made of functions: compared through what it answers.)
        expect([reused.entries, reused.leafId, reused.pathOnly], `${name} ${leaf}`).toEqual([
          fresh.entries,
          fresh.leafId,
          fresh.pathOnly,
        ]);
        expect(reused.index?.entries).toEqual(fresh.index?.entries);
      }
    });
  }

  it("the answers are only read: neighbours built over frozen entries equal fresh answers", async () => {
    const api: Api = createApi(createAppContext({ dbPath: lib.dbFile, seedDemo: false, loadUserHooks: false, env: {} }));
    try {
      const { id, ids } = importLinear(400);
      const ask = (leafId: string) =>
        api.call("context:get", { sessionId: id, leafId, agentMessages: false, holeLongTexts: true });
      const leaf = ids.at(-1) as string;
      await ask(leaf);
      // What the next call reuses: the objects of this load.
      deepFreeze(loadContextEntries(api.ctx.db, id, leaf, { reuse: true }).entries);
      const answers: unknown[] = [];
      for (const next of [ids.at(-2), ids.at(-3), leaf, ids.at(-40)] as string[]) answers.push(await ask(next));
      forgetPathReuse(api.ctx.db);
      for (const [i, next] of [ids.at(-2), ids.at(-3), leaf, ids.at(-40)].entries()) {
        forgetPathReuse(api.ctx.db);
        const fresh = await ask(next as string);
        expect(fresh.ok).toBe(true);
        expect(answers[i]).toEqual(fresh);
      }
    } finally {
      forgetPathReuse(api.ctx.db);
      api.ctx.db.close();
    }
  });

  it("an entry rewritten in place (as pruning does, the session's row untouched) is read again", () => {
    const { id, ids } = importLinear(200);
    const leaf = ids.at(-1) as string;
    const target = loadContextEntries(lib.db, id, leaf).entries.at(-5);
    if (target?.type !== "message") throw new Error("no message entry to rewrite");
    loadContextEntries(lib.db, id, leaf, { reuse: true });
    const rewritten = { ...target, message: { role: "user", content: "rewritten here", timestamp: 1 } };
    const { sid } = requireAnySession(lib.db, id);
    writeTransaction(lib.db, () => replaceEntryJson(lib.db, sid, target.id, JSON.stringify(rewritten), 3))();
    const after = loadContextEntries(lib.db, id, leaf, { reuse: true });
    expect(after.entries.find((entry) => entry.id === target.id)).toEqual(rewritten);
  });

  it("a write by another connection (the CLI, the import thread) is read again", () => {
    const { id, ids } = importLinear(200);
    const leaf = ids.at(-1) as string;
    const target = loadContextEntries(lib.db, id, leaf).entries.at(-5);
    if (target?.type !== "message") throw new Error("no message entry to rewrite");
    loadContextEntries(lib.db, id, leaf, { reuse: true });
    const other = openDatabase(lib.dbFile);
    try {
      const rewritten = { ...target, message: { role: "user", content: "from elsewhere", timestamp: 1 } };
      const { sid } = requireAnySession(other, id);
      writeTransaction(other, () => replaceEntryJson(other, sid, target.id, JSON.stringify(rewritten), 3))();
      const after = loadContextEntries(lib.db, id, leaf, { reuse: true });
      expect(after.entries.find((entry) => entry.id === target.id)).toEqual(rewritten);
    } finally {
      other.close();
    }
  });
});
