// Live refresh (main/library/watch.ts): lines appended to a watched agent file are re-imported
// within a few seconds and announced; a new session in an agent folder appears; a closed watcher
// stays quiet.
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { EventName, Events } from "../../core/api/contract.ts";
import type { AppContext } from "../../main/api/types.ts";
import { createAppContext } from "../../main/app-context.ts";
import { importPath } from "../../main/library/import.ts";
import { listSessions } from "../../main/library/load.ts";
import { versionedSessionTree } from "../../main/library/tree-versions.ts";
import { type LibraryWatcher, startLibraryWatcher } from "../../main/library/watch.ts";
import { makeTempDir } from "./store/helpers.ts";

const T0 = Date.parse("2026-03-01T10:00:00.000Z");

function header(id: string, cwd: string): string {
  return JSON.stringify({ type: "session", version: 3, id, timestamp: new Date(T0).toISOString(), cwd });
}

function userLine(id: string, parentId: string | null, text: string, second: number): string {
  const timestamp = new Date(T0 + second * 1000).toISOString();
  return JSON.stringify({
    type: "message",
    id,
    parentId,
    timestamp,
    message: { role: "user", content: [{ type: "text", text }], timestamp: T0 + second * 1000 },
  });
}

function assistantLine(id: string, parentId: string, text: string, second: number): string {
  return JSON.stringify({
    type: "message",
    id,
    parentId,
    timestamp: new Date(T0 + second * 1000).toISOString(),
    message: {
      role: "assistant",
      content: [{ type: "text", text }],
      provider: "anthropic",
      model: "claude-test",
      usage: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 15 },
      stopReason: "stop",
      timestamp: T0 + second * 1000,
    },
  });
}

type Seen = { name: EventName; payload: Events[EventName] };

let tmp: { dir: string; cleanup(): void };
let ctx: AppContext;
let watcher: LibraryWatcher | null = null;
let seen: Seen[];
let agentRoot: string;
let sessionFile: string;

beforeEach(() => {
  tmp = makeTempDir("canopy-watch-");
  agentRoot = path.join(tmp.dir, "agent", "sessions");
  const project = path.join(agentRoot, "--home-dev-watched--");
  fs.mkdirSync(project, { recursive: true });
  sessionFile = path.join(project, "2026-03-01_s1.jsonl");
  fs.writeFileSync(
    sessionFile,
    `${[header("s1", "/home/dev/watched"), userLine("u1", null, "first question", 1), assistantLine("a1", "u1", "first answer", 2)].join("\n")}\n`,
  );
  ctx = createAppContext({ dbPath: path.join(tmp.dir, "library.db"), seedDemo: false, loadUserHooks: false });
  expect(importPath(ctx.db, sessionFile).imported).toBe(1);
  seen = [];
  ctx.events.subscribe((name, payload) => seen.push({ name, payload }));
});

afterEach(() => {
  watcher?.close();
  watcher = null;
  ctx.db.close();
  tmp.cleanup();
});

function start(): LibraryWatcher {
  watcher = startLibraryWatcher(ctx, {
    debounceMs: 50,
    maxWaitMs: 500,
    agentFolders: () => [agentRoot],
    log: () => {},
  });
  return watcher;
}

/** Waits until the watcher has announced a session:changed (5 s at most). */
async function sessionChanged(): Promise<void> {
  await vi.waitFor(() => expect(seen.some((e) => e.name === "session:changed")).toBe(true), {
    timeout: 5000,
    interval: 25,
  });
}

describe("library watcher", () => {
  it("watches the agent folder the library imports from, recursively", () => {
    const w = start();
    expect(w.watched()).toEqual([path.join(fs.realpathSync(agentRoot), "**")]);
  });

  it("re-imports appended lines and announces library:changed and session:changed", async () => {
    start();
    const started = Date.now();
    fs.appendFileSync(
      sessionFile,
      `${userLine("u2", "a1", "a follow-up question", 3)}\n${assistantLine("a2", "u2", "more", 4)}\n`,
    );
    await sessionChanged();
    expect(Date.now() - started).toBeLessThan(5000);
    expect(seen.find((e) => e.name === "library:changed")?.payload).toEqual({ sessionIds: ["s1"] });
    expect(seen.find((e) => e.name === "session:changed")?.payload).toEqual({
      sessionId: "s1",
      viewLeafId: "a2",
    });
    const [summary] = listSessions(ctx.db);
    expect(summary?.entryCount).toBe(4);
    expect(summary?.messageCount).toBe(4);
  });

  it("at start, takes the lines appended while no watcher ran (the app closed, or killed mid re-import)", async () => {
    // What a browser-mode server SIGKILLed during a live re-import leaves: the library as before
    // it (one transaction), the file grown. Restarted, the session must not stay short until the
    // agent happens to write again.
    fs.appendFileSync(sessionFile, `${userLine("u2", "a1", "asked while Canopy was down", 3)}\n`);
    start();
    await sessionChanged();
    expect(listSessions(ctx.db)[0]?.entryCount).toBe(3);
  });

  it("waits for an import that is running before it re-imports a file", async () => {
    start();
    let endImport = () => {};
    const running = new Promise<void>((resolve) => {
      endImport = resolve;
    });
    // An import of the app's, as if on the import thread: busy until it ends.
    let busy = true;
    ctx.imports = {
      get busy() {
        return busy;
      },
      idle: () => running,
      run: () => Promise.reject(new Error("not used here")),
      exportToFile: () => Promise.reject(new Error("not used here")),
      cancel: () => false,
      searchIndexed: () => Promise.resolve(),
      indexingSearch: false,
      close: () => Promise.resolve(),
    };
    fs.appendFileSync(sessionFile, `${userLine("u2", "a1", "while importing", 3)}\n`);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(listSessions(ctx.db)[0]?.entryCount).toBe(2);
    expect(seen.some((e) => e.name === "session:changed")).toBe(false);
    busy = false;
    endImport();
    await vi.waitFor(() => expect(listSessions(ctx.db)[0]?.entryCount).toBe(3), {
      timeout: 5000,
      interval: 25,
    });
  });

  it("coalesces a burst of appends into few imports", async () => {
    start();
    let parent = "a1";
    for (let i = 0; i < 10; i++) {
      fs.appendFileSync(sessionFile, `${userLine(`b${i}`, parent, `burst ${i}`, 10 + i)}\n`);
      parent = `b${i}`;
    }
    await vi.waitFor(() => expect(listSessions(ctx.db)[0]?.entryCount).toBe(12), {
      timeout: 5000,
      interval: 25,
    });
    expect(seen.filter((e) => e.name === "session:changed").length).toBeLessThanOrEqual(3);
  });

  it("imports a new session file that appears in an agent folder", async () => {
    start();
    const other = path.join(agentRoot, "--home-dev-other--");
    fs.mkdirSync(other);
    const file = path.join(other, "2026-03-01_s2.jsonl");
    fs.writeFileSync(
      file,
      `${[header("s2", "/home/dev/other"), userLine("x1", null, "hello from s2", 1)].join("\n")}\n`,
    );
    await vi.waitFor(
      () =>
        expect(
          listSessions(ctx.db)
            .map((s) => s.id)
            .sort(),
        ).toEqual(["s1", "s2"]),
      {
        timeout: 5000,
        interval: 25,
      },
    );
    expect(
      seen.some(
        (e) =>
          e.name === "library:changed" && (e.payload as { sessionIds: string[] }).sessionIds.includes("s2"),
      ),
    ).toBe(true);
  });

  it("outside agent folders watches only the files it knows", async () => {
    const loose = path.join(tmp.dir, "loose");
    fs.mkdirSync(loose);
    const known = path.join(loose, "known.jsonl");
    fs.writeFileSync(known, `${[header("k1", "/tmp/k"), userLine("k-u1", null, "known", 1)].join("\n")}\n`);
    importPath(ctx.db, known);
    const w = start();
    expect(w.watched()).toContain(fs.realpathSync(loose));
    fs.writeFileSync(
      path.join(loose, "stranger.jsonl"),
      `${[header("z1", "/tmp/z"), userLine("z-u1", null, "no", 1)].join("\n")}\n`,
    );
    fs.appendFileSync(known, `${userLine("k-u2", "k-u1", "grown", 2)}\n`);
    await vi.waitFor(() => expect(listSessions(ctx.db).find((s) => s.id === "k1")?.entryCount).toBe(2), {
      timeout: 5000,
      interval: 25,
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(listSessions(ctx.db).some((s) => s.id === "z1")).toBe(false);
  });

  it("a file deleted (or moved out of the watched folders) is announced, the tree says so; back, it says no more", async () => {
    start();
    const problemKinds = () => versionedSessionTree(ctx.db, "s1").problems.map((p) => p.kind);
    expect(problemKinds()).toEqual([]);
    const saved = fs.readFileSync(sessionFile);
    fs.renameSync(sessionFile, path.join(tmp.dir, "moved-away.jsonl"));
    await sessionChanged();
    expect(seen.find((e) => e.name === "session:changed")?.payload).toEqual({
      sessionId: "s1",
      viewLeafId: "a1",
    });
    expect(problemKinds()).toEqual(["file_missing"]);
    expect(versionedSessionTree(ctx.db, "s1").problems[0]?.message).toContain(
      fs.realpathSync(path.dirname(sessionFile)),
    );
    // Everything imported is kept.
    expect(listSessions(ctx.db)[0]?.entryCount).toBe(2);

    seen.length = 0;
    fs.writeFileSync(sessionFile, saved);
    await sessionChanged();
    expect(problemKinds()).toEqual([]);
  });

  it("a file emptied or overwritten with something else is said to be no session any more; one again, it says no more", async () => {
    start();
    const problems = () => versionedSessionTree(ctx.db, "s1").problems;
    const saved = fs.readFileSync(sessionFile);
    fs.writeFileSync(sessionFile, "");
    await sessionChanged();
    expect(problems()).toEqual([
      expect.objectContaining({ kind: "not_a_session", message: expect.stringContaining("(empty file)") }),
    ]);
    expect(listSessions(ctx.db)[0]?.entryCount).toBe(2);

    seen.length = 0;
    fs.writeFileSync(sessionFile, saved);
    await sessionChanged();
    expect(problems()).toEqual([]);
  });

  it("a last line still being written is listed as such, not as invalid JSON", async () => {
    start();
    const next = userLine("u2", "a1", "a long question the agent is still writing", 3);
    fs.appendFileSync(sessionFile, next.slice(0, 30));
    await vi.waitFor(() => expect(listSessions(ctx.db)[0]?.malformedCount).toBe(1), {
      timeout: 5000,
      interval: 25,
    });
    expect(versionedSessionTree(ctx.db, "s1").problems).toEqual([
      expect.objectContaining({
        kind: "malformed_line",
        line: 4,
        message: expect.stringMatching(/^still being written/),
      }),
    ]);
    fs.appendFileSync(sessionFile, `${next.slice(30)}\n`);
    await vi.waitFor(() => expect(listSessions(ctx.db)[0]?.entryCount).toBe(3), {
      timeout: 5000,
      interval: 25,
    });
    expect(versionedSessionTree(ctx.db, "s1").problems).toEqual([]);
  });

  it("stays quiet after close", async () => {
    start().close();
    watcher = null;
    fs.appendFileSync(sessionFile, `${userLine("u9", "a1", "after close", 9)}\n`);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(seen).toEqual([]);
    expect(listSessions(ctx.db)[0]?.entryCount).toBe(2);
  });
});
