// The CLI's progress line on a terminal: a folder import shows the file it is at and how far it
// is, a compaction how much summary has been written; the line is cleared before the command's
// output, so the output starts on a line of its own. Nothing is shown when stderr is no terminal.
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { progressName } from "../../main/api/handlers/library.ts";
import { runCli } from "../../main/cli.ts";
import { startFakeOpenAiServer } from "../helpers/fake-openai-server.ts";
import { fixturePath } from "../helpers/fixtures.ts";

process.env.CANOPY_NO_DEMO = "1";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "canopy-cli-progress-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs a command on the library `db` with stderr taken for a terminal (or not); every write in order. */
async function runOnDb(
  db: string,
  isTerminal: boolean,
  ...args: string[]
): Promise<[kind: string, text: string][]> {
  const writes: [string, string][] = [];
  await runCli([...args, "--db", db], {
    out: (text) => writes.push(["out", text]),
    err: (text) => writes.push(["err", text]),
    progress: (text) => writes.push(["progress", text]),
    isTerminal,
  });
  return writes;
}

/** runOnDb on the test folder's library.db. */
const run = (isTerminal: boolean, ...args: string[]) =>
  runOnDb(path.join(dir, "library.db"), isTerminal, ...args);

describe("a new library", () => {
  it("is said on a terminal, once, and not when stderr is no terminal", async () => {
    const said = async (isTerminal: boolean, db: string) => {
      const err: string[] = [];
      await runCli(["list", "--db", db], {
        out: () => {},
        err: (text) => err.push(text),
        progress: () => {},
        isTerminal,
      });
      return err;
    };
    const typo = path.join(dir, "mistyped", "libary.db");
    expect(await said(true, typo)).toEqual([`canopy: created a new library at ${typo}`]);
    expect(await said(true, typo)).toEqual([]);
    expect(await said(false, path.join(dir, "piped.db"))).toEqual([]);
  });
});

describe("the progress line", () => {
  it("a folder import shows its file and count, then clears the line before the report", async () => {
    const folder = mkdtempSync(path.join(dir, "folder-"));
    for (const name of ["tree-00.jsonl", "tree-02.jsonl"])
      copyFileSync(fixturePath(name), path.join(folder, name));
    const writes = await run(true, "import", folder);
    const progress = writes.filter(([kind]) => kind === "progress").map(([, text]) => text);
    expect(progress[0]).toBe(`Importing ${progressName(folder, false)}…`);
    // Later lines come at most every 50 ms: the files' lines may be skipped for a quick import.
    for (const line of progress.slice(1, -1))
      expect(line).toMatch(/^(Imported tree-0[02]\.jsonl \(1\/2\)|Storing the last files \(2\/2\)|Finishing the import \(2\/2\))$/);
    expect(progress.at(-1)).toBe("");
    const cleared = writes.findIndex(([kind, text]) => kind === "progress" && text === "");
    const report = writes.findIndex(([kind]) => kind === "out");
    expect(cleared).toBeGreaterThanOrEqual(0);
    expect(cleared).toBeLessThan(report);
  });

  it("a compaction shows the summary being written, then clears the line before its result", async () => {
    const writes = await run(true, "compact", fixturePath("tree-03.jsonl"));
    const progress = writes.filter(([kind]) => kind === "progress").map(([, text]) => text);
    expect(progress[0]).toMatch(/^Summarizing: \d+ characters$/);
    expect(progress.at(-1)).toBe("");
    expect(writes.at(-1)?.[0]).toBe("out");
    expect(writes.at(-1)?.[1]).toMatch(/^Compacted: entry /);
  });

  it("a search that first indexes a large import says so: its progress line, or one line elsewhere", async () => {
    const write = (id: string) => {
      const file = path.join(dir, `${id}.jsonl`);
      const lines = [JSON.stringify({ type: "session", version: 3, id, timestamp: "2026-01-01T00:00:00.000Z", cwd: "/w" })];
      for (let i = 0; i < 21_000; i++) {
        const message = { role: "user", content: i % 100 === 0 ? `wombat ${i}` : `note ${i}`, timestamp: i };
        lines.push(JSON.stringify({ type: "message", id: `${id}${i}`, parentId: i === 0 ? null : `${id}${i - 1}`, timestamp: "t", message }));
      }
      writeFileSync(file, `${lines.join("\n")}\n`);
      return file;
    };
    await run(false, "import", write("first"));
    const quiet = await run(false, "search", "wombat", "--limit", "3");
    const err = quiet.filter(([kind]) => kind === "err").map(([, text]) => text);
    expect(err).toHaveLength(1);
    expect(err[0]).toMatch(/^indexing 2\d,\d{3} new entries for search first \(once after an import\)…$/);
    // The output is the search's own, as when nothing waits to be indexed.
    const again = await run(false, "search", "wombat", "--limit", "3");
    expect(again.filter(([kind]) => kind !== "out")).toEqual([]);
    expect(quiet.filter(([kind]) => kind === "out")).toEqual(again);

    await run(false, "import", write("second"));
    const shown = await run(true, "search", "wombat", "--limit", "3");
    const progress = shown.filter(([kind]) => kind === "progress").map(([, text]) => text);
    expect(progress[0]).toMatch(/^Indexing for search: 0% \(0 of 2\d,\d{3} entries\)$/);
    for (const line of progress.slice(1, -1)) expect(line).toMatch(/^Indexing for search: \d+% \([\d,]+ of [\d,]+ entries\)$/);
    expect(progress.at(-1)).toBe("");
    expect(shown.filter(([kind]) => kind === "err")).toEqual([]);
    expect(shown.at(-1)?.[0]).toBe("out");
  });

  // After an upgrade that re-checks every indexed entry once (migration 10, CJK words), the line
  // said "indexing N new entries … (once after an import)": there were none, and no import.
  it("a search that first re-checks the index after an upgrade says that, not new entries", async () => {
    const db = path.join(dir, "upgraded.db");
    const lines = ["{\"type\":\"session\",\"version\":3,\"id\":\"upg\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"cwd\":\"/w\"}"];
    for (let i = 0; i < 21_000; i++) {
      const message = { role: "user", content: i % 100 === 0 ? `wombat ${i}` : `note ${i}`, timestamp: i };
      lines.push(JSON.stringify({ type: "message", id: `upg${i}`, parentId: i === 0 ? null : `upg${i - 1}`, timestamp: "t", message }));
    }
    const file = path.join(dir, "upgraded.jsonl");
    writeFileSync(file, `${lines.join("\n")}\n`);
    const runOn = (isTerminal: boolean, ...args: string[]) => runOnDb(db, isTerminal, ...args);
    await runOn(false, "import", file);
    await runOn(false, "search", "wombat", "--limit", "3");
    // As migration 10 leaves an indexed library: everything indexed so far is to be re-checked.
    const upgrade = () => {
      const sqlite = new BetterSqlite3(db);
      const upto = sqlite.prepare("SELECT value FROM store_meta WHERE key = 'search.indexed_upto_pk'").pluck().get();
      sqlite.prepare("INSERT OR REPLACE INTO store_meta (key, value) VALUES ('search.cjk_recheck_upto_pk', ?), ('search.cjk_recheck_after_pk', 0)").run(upto);
      sqlite.close();
    };
    upgrade();
    const quiet = await runOn(false, "search", "wombat", "--limit", "3");
    expect(quiet.filter(([kind]) => kind === "err").map(([, text]) => text)).toEqual([
      expect.stringMatching(/^updating the search index first: re-checking 2\d,\d{3} entries indexed by an earlier version \(once after an upgrade\)…$/),
    ]);
    upgrade();
    const shown = await runOn(true, "search", "wombat", "--limit", "3");
    const progress = shown.filter(([kind]) => kind === "progress").map(([, text]) => text);
    expect(progress[0]).toMatch(/^Updating the search index: 0% \(0 of 2\d,\d{3} entries\)$/);
    expect(progress.at(-1)).toBe("");
    expect(shown.at(-1)?.[0]).toBe("out");
  });

  // A model that accepts the request and never sends a token: the line counted nothing (it
  // stayed blank) until the request ended.
  it("a compaction whose model sends nothing counts the wait, then fails as timed out", async () => {
    const fake = await startFakeOpenAiServer();
    try {
      const model = { baseUrl: fake.baseUrl, id: "fake-hang", timeoutSeconds: 3 };
      const db = path.join(dir, "hang.db");
      await runCli(["settings", "set", "model", JSON.stringify(model), "--db", db], {
        out: () => {},
        err: () => {},
        progress: () => {},
        isTerminal: false,
      });
      const silent = { type: "reply" as const, chunks: ["never"], stallAfterChunks: 0 };
      fake.enqueue(silent, silent);
      const writes = await runOnDb(db, true, "compact", fixturePath("tree-03.jsonl"));
      const progress = writes.filter(([kind]) => kind === "progress").map(([, text]) => text);
      // One line a second, counting up (a loaded machine may run a tick late).
      const counts = progress.slice(0, -1).map((line) => /^Waiting for the model's first token… (\d) s$/.exec(line)?.[1]);
      expect(counts.length).toBeGreaterThanOrEqual(2);
      expect(counts.map(Number)).toEqual([...counts.map(Number)].sort());
      expect(counts[0]).toBe("1");
      expect(progress.at(-1)).toBe("");
      const said = writes.filter(([kind]) => kind !== "progress");
      expect(said).toHaveLength(1);
      // Whichever summary request (of the two sent side by side) timed out first: the turn
      // prefix's or the short summary's is named, the main summary's is the compaction's own.
      expect(said[0]?.join(" ")).toMatch(
        /^err canopy: error: Compaction failed( \((turn-prefix|short) summary\))?: Request timed out: the model sent nothing for 3 s \(setting model\.timeoutSeconds\)$/,
      );
    } finally {
      await fake.close();
    }
  });

  it("a compaction whose remote summary endpoint sends nothing counts the wait for it, then fails as timed out", async () => {
    const fake = await startFakeOpenAiServer();
    try {
      const db = path.join(dir, "remote-hang.db");
      const quiet = { out: () => {}, err: () => {}, progress: () => {}, isTerminal: false };
      await runCli(["settings", "set", "compaction.remoteEndpoint", `${fake.url}/remote`, "--db", db], quiet);
      await runCli(["settings", "set", "compaction.remoteTimeoutSeconds", "2", "--db", db], quiet);
      fake.enqueue({ type: "hang", route: "remote" });
      const writes = await runOnDb(db, true, "compact", fixturePath("tree-03.jsonl"));
      const progress = writes.filter(([kind]) => kind === "progress").map(([, text]) => text);
      expect(progress[0]).toBe("Waiting for the remote summary endpoint's answer… 1 s");
      expect(progress.at(-1)).toBe("");
      expect(writes.filter(([kind]) => kind !== "progress")).toEqual([
        [
          "err",
          "canopy: error: Compaction failed (remote endpoint): Request timed out: the endpoint sent nothing for 2 s (setting compaction.remoteTimeoutSeconds)",
        ],
      ]);
    } finally {
      await fake.close();
    }
  });

  it("a compaction whose summary a hook writes says which hook runs, never that it waits for the model", async () => {
    const folder = mkdtempSync(path.join(dir, "hooked-"));
    mkdirSync(path.join(folder, "hooks"));
    const release = path.join(folder, "release");
    // The hook answers once the test has seen it counted (no fixed pause).
    writeFileSync(
      path.join(folder, "hooks", "summary-hook.mjs"),
      `import { existsSync } from "node:fs";
export default (canopy) => canopy.on("session_before_compact", async ({ preparation }) => {
  while (!existsSync(${JSON.stringify(release)})) await new Promise((done) => setTimeout(done, 20));
  return { compaction: { summary: "From the hook", firstKeptEntryId: preparation.firstKeptEntryId, tokensBefore: 1 } };
});
`,
    );
    const fake = await startFakeOpenAiServer();
    try {
      const db = path.join(folder, "library.db");
      const quiet = { out: () => {}, err: () => {}, progress: () => {}, isTerminal: false };
      await runCli(["settings", "set", "model", JSON.stringify({ baseUrl: fake.baseUrl, id: "fake" }), "--db", db], quiet);
      const writes: [string, string][] = [];
      await runCli(["compact", fixturePath("tree-03.jsonl"), "--db", db], {
        out: (text) => writes.push(["out", text]),
        err: (text) => writes.push(["err", text]),
        progress: (text) => {
          writes.push(["progress", text]);
          if (text.endsWith("… 1 s")) writeFileSync(release, "");
        },
        isTerminal: true,
      });
      const progress = writes.filter(([kind]) => kind === "progress").map(([, text]) => text);
      const running = "The session_before_compact hook summary-hook.mjs is running; it may write the summary itself…";
      expect(progress).toContain(`${running} 0 s`);
      expect(progress).toContain(`${running} 1 s`);
      expect(progress.some((line) => line.includes("model's first token"))).toBe(false);
      expect(progress.at(-1)).toBe("");
      expect(fake.requests).toEqual([]);
      expect(writes.filter(([kind]) => kind === "err")).toEqual([]);
    } finally {
      await fake.close();
    }
  });

  it("shows nothing when stderr is not a terminal", async () => {
    const folder = mkdtempSync(path.join(dir, "quiet-"));
    copyFileSync(fixturePath("tree-01.jsonl"), path.join(folder, "a.jsonl"));
    const writes = await run(false, "import", folder);
    expect(writes.filter(([kind]) => kind === "progress")).toEqual([]);
  });
});
