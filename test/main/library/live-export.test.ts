// Issue 6, live files: before an export, a source file that grew since its import is
// re-imported; an export into the folder of a file its agent is still writing (grown, or
// modified within LIVE_WINDOW_MS) is refused unless confirmed; no export ever writes a session's
// own file. Real temp files, real mtimes.
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SessionEntry } from "../../../core/session/entries.ts";
import { parseSessionText } from "../../../core/session/jsonl.ts";
import { LIVE_WINDOW_MS } from "../../../main/library/live-source.ts";
import { cliRecorder } from "../../helpers/cli.ts";
import { appendUserLine, makeOld } from "../../helpers/live-file.ts";
import { createHarness, type Harness, removeDir, SessionFile } from "../pipelines/harness.ts";

let h: Harness;
let agentDir: string;
let otherDir: string;
let source: string;

beforeEach(() => {
  h = createHarness();
  agentDir = path.join(h.dir, "agent");
  otherDir = path.join(h.dir, "exports");
  fs.mkdirSync(agentDir);
  fs.mkdirSync(otherDir);
  source = path.join(agentDir, "session.jsonl");
  fs.writeFileSync(
    source,
    new SessionFile({ id: "live-1" }).user("u1", "hello").assistant("a1", "hi").text(),
  );
  makeOld(source);
});
afterEach(() => {
  h.close();
  removeDir(h.dir);
});

const entriesOf = (text: string): SessionEntry[] => parseSessionText(text).entries.map((e) => e.entry);
const storedIds = async (sessionId: string) =>
  (await h.call("session:get", { sessionId })).entries.map((stored) => stored.entry.id);

async function importSource(): Promise<string> {
  const report = await h.call("library:import", { path: source });
  return report.files[0]?.sessionId as string;
}

describe("export of a session whose file the agent is writing", () => {
  it("re-imports the lines the file gained since its import before exporting, losing none", async () => {
    const sessionId = await importSource();
    appendUserLine(source, "u2", "a1");
    appendUserLine(source, "u3", "u2");
    makeOld(source);
    const sourceBytes = fs.readFileSync(source);
    const out = path.join(otherDir, "out.jsonl");
    const result = await h.call("session:export", { sessionId, outPath: out });
    expect(result.reimportedEntries).toBe(2);
    expect(await storedIds(sessionId)).toEqual(["u1", "a1", "u2", "u3"]);
    // The export holds exactly the file's entries (nothing lost, the new ones included).
    expect(entriesOf(fs.readFileSync(out, "utf8"))).toEqual(entriesOf(sourceBytes.toString("utf8")));
    expect(fs.readFileSync(source).equals(sourceBytes)).toBe(true);
    // A text export re-imports too.
    appendUserLine(source, "u4", "u3");
    makeOld(source);
    const text = await h.call("session:export", { sessionId });
    expect(text.reimportedEntries).toBe(1);
    expect(entriesOf(text.text ?? "").map((e) => e.id)).toEqual(["u1", "a1", "u2", "u3", "u4"]);
  });

  it("refuses an export into the folder of a grown file unless confirmed; the new lines are imported either way", async () => {
    const sessionId = await importSource();
    appendUserLine(source, "u2", "a1");
    makeOld(source);
    const sourceBytes = fs.readFileSync(source);
    const out = path.join(agentDir, "copy.jsonl");
    const refused = await h.fail("session:export", { sessionId, outPath: out });
    expect(refused.code).toBe("live_source");
    expect(refused.message).toContain("session.jsonl grew since its import (1 new entry re-imported)");
    expect(refused.message).toContain("--force");
    expect(refused.message).not.toContain("\n");
    expect(fs.existsSync(out)).toBe(false);
    expect(await storedIds(sessionId)).toEqual(["u1", "a1", "u2"]);

    const written = await h.call("session:export", { sessionId, outPath: out, confirmLiveFolder: true });
    expect(written.path).toBe(fs.realpathSync(out));
    expect(entriesOf(fs.readFileSync(out, "utf8"))).toEqual(entriesOf(sourceBytes.toString("utf8")));
    expect(fs.readFileSync(source).equals(sourceBytes)).toBe(true);
  });

  it("a file modified within the live window (even only touched) counts as live; an old, unchanged one does not", async () => {
    const sessionId = await importSource();
    const out = path.join(agentDir, "copy.jsonl");
    // Old and unchanged: the folder is fine.
    expect((await h.call("session:export", { sessionId, outPath: out })).path).toBeTruthy();
    fs.rmSync(out);
    // Touched just now, same bytes: the agent may be about to write.
    const now = new Date();
    fs.utimesSync(source, now, now);
    const refused = await h.fail("session:export", { sessionId, outPath: out });
    expect(refused.code).toBe("live_source");
    expect(refused.message).toMatch(/session\.jsonl was modified \d+ s ago: its agent is still writing it/);
    expect(fs.existsSync(out)).toBe(false);
    // Another folder is always fine, and nothing was re-imported for a touch.
    const elsewhere = await h.call("session:export", { sessionId, outPath: path.join(otherDir, "x.jsonl") });
    expect(elsewhere.reimportedEntries).toBeUndefined();
    expect(LIVE_WINDOW_MS).toBeGreaterThanOrEqual(1000);
  });

  it("never writes a session's own file: not this one, not another's, not through a symlink, not even confirmed", async () => {
    const sessionId = await importSource();
    const otherSource = path.join(otherDir, "other.jsonl");
    fs.writeFileSync(otherSource, new SessionFile({ id: "other-1" }).user("o1", "other").text());
    await h.call("library:import", { path: otherSource });
    const link = path.join(h.dir, "link.jsonl");
    fs.symlinkSync(otherSource, link);
    const before = [fs.readFileSync(source), fs.readFileSync(otherSource)];
    for (const outPath of [source, otherSource, link]) {
      const error = await h.fail("session:export", { sessionId, outPath, confirmLiveFolder: true });
      expect(error.code).toBe("invalid_input");
      expect(error.message).toContain("never writes into an agent's session file");
    }
    // Also for a session deleted from the library: its file is still an agent's.
    await h.call("library:delete", { sessionId: "other-1" });
    expect((await h.fail("session:export", { sessionId, outPath: otherSource })).code).toBe("invalid_input");
    expect(fs.readFileSync(source).equals(before[0] as Buffer)).toBe(true);
    expect(fs.readFileSync(otherSource).equals(before[1] as Buffer)).toBe(true);
  });

  it("never replaces a session file the library has not imported; an earlier export of the same session is replaced", async () => {
    const sessionId = await importSource();
    // An agent session this library never imported (another library's, or not scanned yet).
    const foreign = path.join(otherDir, "foreign.jsonl");
    fs.writeFileSync(foreign, `\uFEFF${new SessionFile({ id: "foreign-1" }).user("f1", "mine").text()}`);
    makeOld(foreign);
    const before = fs.readFileSync(foreign);
    const error = await h.fail("session:export", { sessionId, outPath: foreign, confirmLiveFolder: true });
    expect(error.code).toBe("invalid_input");
    expect(error.message).toContain("another session (foreign-1)");
    expect(fs.readFileSync(foreign).equals(before)).toBe(true);
    // The same session exported twice to one path: the second export replaces the first.
    const out = path.join(otherDir, "export.jsonl");
    await h.call("session:export", { sessionId, outPath: out });
    await h.call("session:export", { sessionId, outPath: out, leafId: "u1" });
    expect(entriesOf(fs.readFileSync(out, "utf8")).at(-1)?.parentId).toBe("u1");
  });

  it("does not replace an earlier export an agent has resumed and written to, unless confirmed", async () => {
    const sessionId = await importSource();
    await h.call("edits:rename", { sessionId, title: "Renamed in Canopy" });
    const out = path.join(otherDir, "resumed.jsonl");
    const first = await h.call("session:export", { sessionId, outPath: out, leafId: "u1" });
    // Exported again as it is (its resume marker and session_info are Canopy's own): replaced.
    await h.call("session:export", { sessionId, outPath: out, leafId: "a1" });
    // The agent resumes the export and appends its work below the marker, then a line it broke.
    const marker = entriesOf(fs.readFileSync(out, "utf8")).at(-1)?.id as string;
    expect(marker).not.toBe(first.resumeEntryId);
    appendUserLine(out, "agent-u", marker);
    fs.appendFileSync(out, `${"x".repeat(200_000)}\n`);
    makeOld(out);
    const before = fs.readFileSync(out);
    const error = await h.fail("session:export", { sessionId, outPath: out, leafId: "u1" });
    expect(error.code).toBe("live_source");
    expect(error.message).toContain("agent-u");
    expect(error.message).toMatch(/--force/);
    expect(fs.readFileSync(out).equals(before)).toBe(true);
    // Confirmed ("Export anyway", --force): replaced.
    await h.call("session:export", { sessionId, outPath: out, leafId: "u1", confirmLiveFolder: true });
    expect(entriesOf(fs.readFileSync(out, "utf8")).map((e) => e.id)).not.toContain("agent-u");
  });

  it("an earlier export that only Canopy wrote is replaced: after an undone edit, a rename, without a marker", async () => {
    const sessionId = await importSource();
    const out = path.join(otherDir, "again.jsonl");
    const edit = await h.call("edits:edit-message", { sessionId, entryId: "u1", text: "edited" });
    await h.call("session:export", { sessionId, outPath: out, leafId: edit.entryId as string });
    await h.call("edits:undo", { sessionId });
    await h.call("session:export", { sessionId, outPath: out, leafId: "a1" });
    await h.call("edits:rename", { sessionId, title: "Named" });
    await h.call("session:export", { sessionId, outPath: out });
    expect(entriesOf(fs.readFileSync(out, "utf8")).at(-1)?.type).toBe("session_info");
    await h.call("session:export", { sessionId, outPath: out });
    // The agent names the session (a session_info of its own) after its work: still its work.
    appendUserLine(out, "agent-u", "a1");
    fs.appendFileSync(
      out,
      `${JSON.stringify({ type: "session_info", id: "agent-n", parentId: "agent-u", timestamp: "2026-02-01T11:00:01.000Z", name: "pi name" })}\n`,
    );
    expect((await h.fail("session:export", { sessionId, outPath: out })).code).toBe("live_source");
  });

  it("never writes Canopy's own files: the library (and SQLite's files beside it) or the stored keys", async () => {
    const sessionId = await importSource();
    const keys = path.join(path.dirname(h.dbPath), "secrets.json");
    fs.writeFileSync(keys, '{"version":1,"keys":{}}\n');
    const link = path.join(otherDir, "library-link.db");
    fs.symlinkSync(h.dbPath, link);
    for (const outPath of [h.dbPath, `${h.dbPath}-wal`, `${h.dbPath}-shm`, link, keys]) {
      const error = await h.fail("session:export", { sessionId, outPath, confirmLiveFolder: true });
      expect(error.code).toBe("invalid_input");
      expect(error.message).toContain("is one of Canopy's own files (its library or stored keys)");
    }
    // The library is whole: the session is still there.
    expect(await storedIds(sessionId)).toEqual(["u1", "a1"]);
    expect(fs.readFileSync(keys, "utf8")).toBe('{"version":1,"keys":{}}\n');
  });

  it("CLI export: one-line warning and exit 1 without --force, written with it", async () => {
    const sessionId = await importSource();
    appendUserLine(source, "u2", "a1");
    h.close();
    const { err, run } = cliRecorder(h.dbPath);
    const target = path.join(agentDir, "cli-copy.jsonl");
    expect(await run("export", sessionId, "--out", target)).toBe(1);
    expect(err).toHaveLength(1);
    expect(err[0]).toMatch(
      /^canopy: error: session\.jsonl (was modified \d+ s ago|grew since its import) \(1 new entry re-imported\).*--force/,
    );
    expect(fs.existsSync(target)).toBe(false);
    err.length = 0;
    expect(await run("export", sessionId, "--out", target, "--force")).toBe(0);
    expect(err.at(-1)).toContain(`wrote 4 lines to ${fs.realpathSync(target)}`);
    expect(entriesOf(fs.readFileSync(target, "utf8")).map((e) => e.id)).toEqual(["u1", "a1", "u2"]);
  });
});
