// A session's usage statistics (SPEC §2.1; core/session/usage-totals.ts, main/library/usage.ts):
// sums of input, output, cacheRead, cacheWrite and cost.total over every assistant message of
// the file, all branches, plus task tool results' details.usage; odd values count 0. The
// library's route (session:usage: summed from what each reply stored beside its entry, entry_usage)
// gives what the core function gives over the parsed file, on every fixture and after pruning,
// and to the last bit what the route before it gave (every reply read from its JSON); so does
// reading a session stored before entry_usage, or an entry Canopy rewrote, from its JSON.
import fs from "node:fs";
import BetterSqlite3 from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseSessionText } from "../../../core/session/jsonl.ts";
import { addUsage, emptyUsageTotals, messageUsage, usageTotals } from "../../../core/session/usage-totals.ts";
import { requireSession } from "../../../main/library/load.ts";
import type { Database } from "../../../main/store/open.ts";
import { replaceEntryJson } from "../../../main/store/repos/entry-json.ts";
import { fixturePath, fixturesDir } from "../../helpers/fixtures.ts";
import { sessionUsageReference } from "../../helpers/usage-reference.ts";
import { createHarness, type Harness, SessionFile } from "../pipelines/harness.ts";

let h: Harness;
beforeEach(() => {
  h = createHarness();
});
afterEach(() => h.close());

const usage = (input: number, output: number, cacheRead: number, cacheWrite: number, total: number) => ({
  input,
  output,
  cacheRead,
  cacheWrite,
  totalTokens: input + output + cacheRead + cacheWrite,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total },
});

/** Two branches, a task result with a sub-agent's usage, a plain tool result, odd values. */
function branchedSession(): SessionFile {
  const file = new SessionFile({ id: "usage-a" })
    .user("u1", "Start")
    .add("a1", "message", {
      message: { role: "assistant", content: [{ type: "text", text: "x".repeat(5000) }], provider: "p", model: "m", usage: usage(100, 20, 1000, 50, 0.25), stopReason: "toolUse", timestamp: 1 },
    })
    .add("t1", "message", {
      message: { role: "toolResult", toolCallId: "c1", toolName: "task", content: [{ type: "text", text: "done" }], details: { usage: usage(7, 3, 0, 0, 0.01) }, isError: false, timestamp: 2 },
    })
    .add("t2", "message", {
      message: { role: "toolResult", toolCallId: "c2", toolName: "read", content: [{ type: "text", text: "file" }], details: { usage: usage(999, 999, 999, 999, 9) }, isError: false, timestamp: 3 },
    })
    // The other branch, from u1: a reply with odd fields, one without usage, one aborted.
    .add("a2", "message", {
      message: { role: "assistant", content: [], provider: "p", model: "m", usage: { input: "12", output: 5, cacheRead: null, cacheWrite: Number.NaN, cost: "free" }, stopReason: "stop", timestamp: 4 },
    }, "u1")
    .add("a3", "message", { message: { role: "assistant", content: [], provider: "p", model: "m", stopReason: "stop", timestamp: 5 } })
    .add("a4", "message", {
      message: { role: "assistant", content: [], provider: "p", model: "m", usage: usage(40, 0, 0, 0, 0.5), stopReason: "aborted", timestamp: 6 },
    });
  return file;
}

describe("usage totals (§2.1)", () => {
  it("sums every assistant reply of every branch and task results' sub-agent usage; odd values count 0", () => {
    const parsed = parseSessionText(branchedSession().text());
    expect(usageTotals(parsed.entries.map((line) => line.entry))).toEqual({
      replies: 4,
      input: 100 + 7 + 0 + 40,
      output: 20 + 3 + 5 + 0,
      cacheRead: 1000,
      cacheWrite: 50,
      cost: 0.25 + 0.01 + 0.5,
    });
    expect(messageUsage({ role: "user", usage: usage(1, 1, 1, 1, 1) })).toBeUndefined();
    const totals = emptyUsageTotals();
    addUsage(totals, "not an object");
    addUsage(totals, [1, 2]);
    expect(totals.replies).toBe(0);
  });

  it("session:usage gives the same as the core function over the file", async () => {
    const sessionId = await h.importSession(branchedSession(), "branched");
    const parsed = parseSessionText(branchedSession().text());
    expect(await h.call("session:usage", { sessionId })).toEqual(usageTotals(parsed.entries.map((l) => l.entry)));
  });

  it("on every fixture (both dialects, v1 files migrated)", async () => {
    const names = fs.readdirSync(fixturesDir()).filter((name) => name.endsWith(".jsonl"));
    expect(names.length).toBeGreaterThanOrEqual(7);
    for (const name of names) {
      const { files } = await h.call("library:import", { path: fixturePath(name) });
      const sessionId = files[0]?.sessionId as string;
      const expected = usageTotals(parseSessionText(fs.readFileSync(fixturePath(name), "utf8")).entries.map((l) => l.entry));
      const got = await h.call("session:usage", { sessionId });
      expect({ name, ...got, cost: got.cost.toFixed(9) }).toEqual({ name, ...expected, cost: expected.cost.toFixed(9) });
    }
    // The real sessions were priced by the agent: the sum is not zero.
    const { files } = await h.call("library:import", { path: fixturePath("real-before-compaction.v1.jsonl") });
    const real = await h.call("session:usage", { sessionId: files[0]?.sessionId as string });
    expect(real.replies).toBeGreaterThan(100);
    expect(real.cost).toBeGreaterThan(0);
  });

  it("pruning old tool outputs changes nothing of it", async () => {
    const file = new SessionFile({ id: "usage-prune" }).user("u0", "Go");
    for (let i = 0; i < 40; i++) {
      file
        .assistant(`a${i}`, "reading", { calls: [{ id: `c${i}`, name: "read", args: { path: `f${i}` } }], usage: { input: 10, output: 1 } })
        .add(`t${i}`, "message", {
          message: { role: "toolResult", toolCallId: `c${i}`, toolName: i % 2 ? "task" : "read", content: [{ type: "text", text: "y".repeat(40_000) }], details: { usage: usage(2, 1, 0, 0, 0) }, isError: false, timestamp: i },
        });
    }
    const sessionId = await h.importSession(file, "prune");
    const before = await h.call("session:usage", { sessionId });
    expect(before).toMatchObject({ replies: 60, input: 40 * 10 + 20 * 2, output: 40 + 20 });
    expect((await h.call("pruning:apply", { sessionId })).prunedCount).toBeGreaterThan(0);
    expect(await h.call("session:usage", { sessionId })).toEqual(before);
  });

  it("follows the session: rows the agent appends are added, a rewritten file is read again", async () => {
    const file = new SessionFile({ id: "usage-live" }).user("u1", "Go").assistant("a1", "ok", { usage: { input: 100, output: 10 } });
    const sessionId = await h.importSession(file, "live");
    const filePath = `${h.dir}/live.jsonl`;
    expect(await h.call("session:usage", { sessionId })).toMatchObject({ replies: 1, input: 100 });
    file.user("u2", "More").assistant("a2", "sure", { usage: { input: 300, output: 30 } });
    fs.writeFileSync(filePath, file.text());
    await h.call("library:import", { path: filePath });
    expect(await h.call("session:usage", { sessionId })).toMatchObject({ replies: 2, input: 400, output: 40 });
    // A rewritten file keeps what was stored (nothing is lost): the totals stay.
    fs.writeFileSync(filePath, file.text().replace('"input":300', '"input":5000'));
    await h.call("library:import", { path: filePath });
    expect(await h.call("session:usage", { sessionId })).toMatchObject({ replies: 2, input: 400 });
    // Rows gone (as an undo removes Canopy's own): the kept totals are not trusted, all is read again.
    const { db } = h.api.ctx;
    db.prepare("DELETE FROM entries WHERE id = 'a1'").run();
    expect(await h.call("session:usage", { sessionId })).toMatchObject({ replies: 1, input: 300 });
    // Rows removed and as many added: the count alone would not tell.
    await h.call("edits:edit-message", { sessionId, entryId: "u2", text: "Less" });
    db.prepare("DELETE FROM entries WHERE id = 'a2'").run();
    expect(await h.call("session:usage", { sessionId })).toMatchObject({ replies: 0, input: 0 });
  });

  it("an unknown session is refused", async () => {
    expect((await h.fail("session:usage", { sessionId: "nope" })).code).toBe("not_found");
  });
});

/** The session's rows in the library's tables of usage: stored replies, rows to read from JSON, legacy mark. */
function usageState(db: Database, sessionId: string) {
  const { sid } = requireSession(db, sessionId);
  const count = (sql: string) => db.prepare(sql).pluck().get(sid) as number;
  return {
    stored: count("SELECT count(*) FROM entry_usage AS u JOIN entries AS e ON e.pk = u.pk WHERE e.sid = ?"),
    unread: count("SELECT count(*) FROM usage_unread WHERE sid = ?"),
    legacy: count("SELECT count(*) FROM usage_legacy WHERE sid = ?"),
  };
}

/** Overwrites the session's stored JSON with zeros: a route that read any would not find its usage. */
function blankJson(db: Database, sessionId: string): void {
  const { sid } = requireSession(db, sessionId);
  db.prepare("UPDATE entry_blocks SET data = zeroblob(length(data)) WHERE sid = ?").run(sid);
}

/** What migration 11 leaves of a session an older Canopy stored: no usage rows, marked legacy. */
function asStoredBefore(db: Database, sessionId: string): void {
  const { sid } = requireSession(db, sessionId);
  db.prepare("DELETE FROM entry_usage WHERE pk IN (SELECT pk FROM entries WHERE sid = ?)").run(sid);
  db.prepare("INSERT INTO usage_legacy (sid) VALUES (?)").run(sid);
}

describe("usage kept beside the entries (entry_usage)", () => {
  it("gives, to the last bit, what reading every reply's JSON gave, on every fixture", async () => {
    const names = fs.readdirSync(fixturesDir()).filter((name) => name.endsWith(".jsonl"));
    for (const name of [...names, "branched"]) {
      const sessionId =
        name === "branched"
          ? await h.importSession(branchedSession(), "branched")
          : ((await h.call("library:import", { path: fixturePath(name) })).files[0]?.sessionId as string);
      const reference = sessionUsageReference(h.api.ctx.db, sessionId);
      expect({ name, ...(await h.call("session:usage", { sessionId })) }).toEqual({ name, ...reference });
    }
  });

  it("a session stored now is summed without reading any entry's JSON", async () => {
    const sessionId = await h.importSession(branchedSession(), "branched");
    const expected = sessionUsageReference(h.api.ctx.db, sessionId);
    expect(usageState(h.api.ctx.db, sessionId)).toEqual({ stored: 4, unread: 0, legacy: 0 });
    blankJson(h.api.ctx.db, sessionId);
    expect(await h.call("session:usage", { sessionId })).toEqual(expected);
  });

  it("a session stored before is read from its JSON once, and what was read is stored", async () => {
    const { files } = await h.call("library:import", {
      path: fixturePath("real-before-compaction.v1.jsonl"),
    });
    const sessionId = files[0]?.sessionId as string;
    const { db } = h.api.ctx;
    const expected = sessionUsageReference(db, sessionId);
    const stored = usageState(db, sessionId).stored;
    asStoredBefore(db, sessionId);
    expect(usageState(db, sessionId)).toEqual({ stored: 0, unread: 0, legacy: 1 });
    expect(await h.call("session:usage", { sessionId })).toEqual(expected);
    expect(usageState(db, sessionId)).toEqual({ stored, unread: 0, legacy: 0 });
    // Another connection (the app started again) reads only what was stored.
    blankJson(db, sessionId);
    const again = createHarness({ dir: h.dir });
    try {
      expect(await again.call("session:usage", { sessionId })).toEqual(expected);
    } finally {
      again.close();
    }
  });

  it("while another connection holds the write lock, answers at once from the JSON and stores nothing", async () => {
    const sessionId = await h.importSession(branchedSession(), "branched");
    const { db } = h.api.ctx;
    const expected = sessionUsageReference(db, sessionId);
    asStoredBefore(db, sessionId);
    const other = new BetterSqlite3(h.dbPath);
    try {
      other.exec("BEGIN IMMEDIATE");
      const started = performance.now();
      expect(await h.call("session:usage", { sessionId })).toEqual(expected);
      // busy_timeout is 5 s: the store did not wait for it.
      expect(performance.now() - started).toBeLessThan(3000);
      expect(usageState(db, sessionId)).toEqual({ stored: 0, unread: 0, legacy: 1 });
      expect(db.pragma("busy_timeout", { simple: true })).toBe(5000);
      other.exec("ROLLBACK");
      expect(await h.call("session:usage", { sessionId })).toEqual(expected);
      expect(usageState(db, sessionId)).toEqual({ stored: 4, unread: 0, legacy: 0 });
    } finally {
      other.close();
    }
  });

  it("an entry whose JSON Canopy rewrites is read from the JSON it has now", async () => {
    const sessionId = await h.importSession(branchedSession(), "branched");
    const { db } = h.api.ctx;
    const before = await h.call("session:usage", { sessionId });
    // As when an agent's pruned line replaces the stored one on a re-import (import-full.ts): here
    // the reply's usage changes with it, and the row kept at its import no longer holds.
    const { sid } = requireSession(db, sessionId);
    const rewritten = {
      type: "message",
      id: "a1",
      parentId: "u1",
      timestamp: "2026-01-01T00:00:00.000Z",
      message: {
        role: "assistant",
        content: [],
        provider: "p",
        model: "m",
        usage: usage(1, 2, 3, 4, 0.125),
        stopReason: "toolUse",
        timestamp: 1,
      },
    };
    expect(replaceEntryJson(db, sid, "a1", JSON.stringify(rewritten), 1)).toBe(true);
    expect(usageState(db, sessionId).unread).toBe(1);
    const after = await h.call("session:usage", { sessionId });
    expect(after).toEqual({
      ...before,
      input: before.input - 100 + 1,
      output: before.output - 20 + 2,
      cacheRead: before.cacheRead - 1000 + 3,
      cacheWrite: before.cacheWrite - 50 + 4,
      cost: after.cost,
    });
    expect(after).toEqual(sessionUsageReference(db, sessionId));
    expect(usageState(db, sessionId)).toEqual({ stored: 4, unread: 0, legacy: 0 });
    // A rewrite that takes the usage away: the reply no longer counts.
    const { usage: _gone, ...withoutUsage } = rewritten.message;
    replaceEntryJson(db, sid, "a1", JSON.stringify({ ...rewritten, message: withoutUsage }), 1);
    expect(await h.call("session:usage", { sessionId })).toEqual(sessionUsageReference(db, sessionId));
    expect(usageState(db, sessionId)).toEqual({ stored: 3, unread: 0, legacy: 0 });
  });

  it("a re-import of a grown file: the totals kept and added to are those a new connection reads", async () => {
    const file = new SessionFile({ id: "usage-grow" })
      .user("u1", "Go")
      .assistant("a1", "ok", { usage: { input: 100, output: 10 } });
    const sessionId = await h.importSession(file, "grow");
    const filePath = `${h.dir}/grow.jsonl`;
    await h.call("session:usage", { sessionId });
    for (let i = 2; i <= 4; i++) {
      file
        .user(`u${i}`, "More")
        .assistant(`a${i}`, "sure", { usage: { input: 100 * i + 0.1, output: i, cacheRead: 7 } });
      fs.writeFileSync(filePath, file.text());
      await h.call("library:import", { path: filePath });
      const grown = await h.call("session:usage", { sessionId });
      const fresh = createHarness({ dir: h.dir });
      try {
        expect(await fresh.call("session:usage", { sessionId })).toEqual(grown);
      } finally {
        fresh.close();
      }
      expect(grown).toEqual(usageTotals(parseSessionText(file.text()).entries.map((l) => l.entry)));
    }
    expect(usageState(h.api.ctx.db, sessionId)).toEqual({ stored: 4, unread: 0, legacy: 0 });
  });

  it("deleted entries take their usage rows with them", async () => {
    const sessionId = await h.importSession(branchedSession(), "branched");
    const { db } = h.api.ctx;
    db.prepare("DELETE FROM entries WHERE id = 'a1'").run();
    expect(usageState(db, sessionId)).toEqual({ stored: 3, unread: 0, legacy: 0 });
    expect(await h.call("session:usage", { sessionId })).toEqual(sessionUsageReference(db, sessionId));
    // A session removed from the library for good takes all of its rows.
    db.prepare("DELETE FROM sessions WHERE id = ?").run(sessionId);
    expect(db.prepare("SELECT count(*) FROM entry_usage").pluck().get()).toBe(0);
  });
});
