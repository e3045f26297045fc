// context:get on neighbouring leaves (arrow moves in the tree) reuses what the previous call read
// and parsed (main/library/context-reuse.ts): on a long path it parsed all ~29,000 entries on
// every move. What is reused must give exactly a fresh load's answer, for any order of leaves,
// and be let go on any write to the library, by this connection or another.
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { generateSession } from "../../../bench/generate-session.ts";
import { mergeContextAnswer } from "../../../core/api/context-answer.ts";
import type { ApiResult, ContextView } from "../../../core/api/dto.ts";
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

/** The value of a contract call's result (fails the test on an error). */
function answered<T>(result: ApiResult<T>): T {
  if (!result.ok) throw new Error(result.error.message);
  return result.value;
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

describe("context:get answered since an answer the caller holds", () => {
  let api: Api;
  beforeEach(() => {
    api = createApi(createAppContext({ dbPath: lib.dbFile, seedDemo: false, loadUserHooks: false, env: {} }));
  });
  afterEach(() => {
    forgetPathReuse(api.ctx.db);
    api.ctx.db.close();
  });

  /** Asks for each leaf in turn as the page does, each time since the view it holds; checks each. */
  async function walk(sessionId: string, leaves: readonly (string | null)[]): Promise<number[]> {
    let held: ContextView | null = null;
    const sent: number[] = [];
    for (const leafId of leaves) {
      const base: ContextView | null = held;
      const input = { sessionId, leafId, agentMessages: false, holeLongTexts: true };
      const answer = answered(await api.call("context:get", { ...input, since: base?.answerId ?? null }));
      expect(typeof answer.answerId).toBe("string");
      held = mergeContextAnswer(base, answer);
      sent.push(answer.messages.length);
      // Put back together, it is the whole answer (which names no answer: asked without since).
      const { answerId: _id, ...view } = held;
      expect(view, `${leafId}`).toEqual(answered(await api.call("context:get", input)));
    }
    return sent;
  }

  it("a neighbouring leaf is sent the messages past the start the two share", async () => {
    const { id, ids } = importLinear(400);
    const leaves = [ids.at(-1), ids.at(-2), ids.at(-3), ids.at(-2), ids.at(-1)] as string[];
    const sent = await walk(id, leaves);
    // The first whole; then up (nothing new), up, down one, down one.
    expect(sent[0]).toBeGreaterThan(300);
    expect(sent.slice(1)).toEqual([0, 0, 1, 1]);
  });

  for (const name of ["tree-01.jsonl", "tree-03.jsonl", "real-before-compaction.v1.jsonl"]) {
    it(`${name}: every answer put back together is the whole answer, in runs and jumps`, async () => {
      const id = answered(await api.call("library:import", { path: fixturePath(name) })).files[0]?.sessionId ?? "";
      const all = loadSessionEntries(api.ctx.db, id).map((entry) => entry.id);
      const runs: string[] = [];
      for (let at = 0; at < all.length; at += Math.ceil(all.length / 6)) runs.push(...all.slice(at, at + 12));
      const jumps = all.filter((_, i) => i % Math.ceil(all.length / 20) === 0).reverse();
      await walk(id, [...runs, ...jumps, null, all[0] ?? null, all.at(-1) ?? null]);
    });
  }

  it("after a write, an answer the caller holds is not built on: every message is sent", async () => {
    const { id, ids } = importLinear(200);
    const leaf = ids.at(-1) as string;
    const input = { sessionId: id, leafId: leaf, agentMessages: false, holeLongTexts: true };
    const first = answered(await api.call("context:get", { ...input, since: null }));
    answered(await api.call("edits:label", { sessionId: id, targetId: ids.at(-5) as string, label: "marked" }));
    const again = answered(await api.call("context:get", { ...input, since: first.answerId ?? null }));
    expect(again.messagesFrom).toBeUndefined();
    expect(again.messages).toEqual(first.messages);
  });

  it("an unknown answer id (another process's, one let go) gets every message", async () => {
    const { id, ids } = importLinear(100);
    const input = { sessionId: id, leafId: ids.at(-1), agentMessages: false, holeLongTexts: true };
    const answer = answered(await api.call("context:get", { ...input, since: "elsewhere.1" }));
    expect(answer.messagesFrom).toBeUndefined();
    expect(answer.messages.length).toBeGreaterThan(50);
  });
});
