// A session's usage statistics (SPEC §2.1; core/session/usage-totals.ts, main/library/usage.ts):
// sums of input, output, cacheRead, cacheWrite and cost.total over every assistant message of
// the file, all branches, plus task tool results' details.usage; odd values count 0. The
// library's route (session:usage: only replies and tool results read, without their long texts)
// gives what the core function gives over the parsed file, on every fixture and after pruning.
import fs from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseSessionText } from "../../../core/session/jsonl.ts";
import { addUsage, emptyUsageTotals, messageUsage, usageTotals } from "../../../core/session/usage-totals.ts";
import { fixturePath, fixturesDir } from "../../helpers/fixtures.ts";
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
