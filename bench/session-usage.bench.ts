/**
 * session:usage on the generated 100k-entry session: the old route (every reply read from its
 * JSON, test/helpers/usage-reference.ts) against the route now (what each reply stored beside its
 * entry, entry_usage), each on a new connection as the first read after the app starts, in
 * alternating runs; a session stored before entry_usage (read from JSON once, then stored); a
 * read again and after one appended turn; and over HTTP, how long a context:get sent right
 * behind the usage waits. Prints figures; never fails.
 * Run: node --experimental-strip-types bench/session-usage.bench.ts [--entries N] [--runs N]
 */
import fs from "node:fs";
import { fileURLToPath } from "node:url";
import { importPath } from "../main/library/import.ts";
import { sessionUsage } from "../main/library/usage.ts";
import { startBrowserMode } from "../main/serve.ts";
import { openDatabase } from "../main/store/open.ts";
import { apiCall } from "../test/helpers/browser-mode.ts";
import { sessionUsageReference } from "../test/helpers/usage-reference.ts";
import { fmt, generatedLibrary, median, numberArg, printTable, timed } from "./bench-utils.ts";

/** What migration 11 leaves of a session stored before it: no usage rows, marked to be read from JSON. */
function asStoredBefore(dbFile: string, sessionId: string): void {
  const db = openDatabase(dbFile);
  try {
    const sid = db.prepare("SELECT sid FROM sessions WHERE id = ?").pluck().get(sessionId) as number;
    db.prepare("DELETE FROM entry_usage WHERE pk IN (SELECT pk FROM entries WHERE sid = ?)").run(sid);
    db.prepare("INSERT OR IGNORE INTO usage_legacy (sid) VALUES (?)").run(sid);
  } finally {
    db.close();
  }
}

/** On a new connection: `read` once (nothing kept yet). */
function onNewConnection<T>(
  dbFile: string,
  read: (db: ReturnType<typeof openDatabase>) => T,
): { ms: number; value: T } {
  const db = openDatabase(dbFile);
  try {
    return timed(() => read(db));
  } finally {
    db.close();
  }
}

/** One line of a turn appended to the file (a user message and a reply with usage), as an agent writes. */
function appendTurn(file: string, parentId: string, n: number): string {
  const at = new Date(Date.UTC(2027, 0, 1, 0, 0, n)).toISOString();
  const user = {
    type: "message",
    id: `bu${n}`,
    parentId,
    timestamp: at,
    message: { role: "user", content: "more", timestamp: 1 },
  };
  const usage = { input: 1000 + n, output: 10, cacheRead: 0, cacheWrite: 0, cost: { total: 0.01 } };
  const reply = {
    type: "message",
    id: `ba${n}`,
    parentId: `bu${n}`,
    timestamp: at,
    message: {
      role: "assistant",
      content: [{ type: "text", text: "ok" }],
      usage,
      stopReason: "stop",
      timestamp: 2,
    },
  };
  fs.appendFileSync(file, `${JSON.stringify(user)}\n${JSON.stringify(reply)}\n`);
  return `ba${n}`;
}

export async function runSessionUsageBench(options: { entries?: number; runs?: number } = {}): Promise<void> {
  const runs = options.runs ?? 5;
  const library = generatedLibrary("canopy-usage-bench-", options.entries);
  const { generated, tmp, dbPath: dbFile, source, sessionId } = library;
  try {
    // The first read on a new connection, the old route and the route now in turn.
    const oldMs: number[] = [];
    const nowMs: number[] = [];
    let same = true;
    for (let run = 0; run < runs; run++) {
      const old = onNewConnection(dbFile, (db) => sessionUsageReference(db, sessionId));
      const now = onNewConnection(dbFile, (db) => sessionUsage(db, sessionId));
      oldMs.push(old.ms);
      nowMs.push(now.ms);
      same &&= JSON.stringify(old.value) === JSON.stringify(now.value);
    }

    // Read again on the same connection, and after an appended turn (re-imported as the watcher does).
    const againMs: number[] = [];
    const appendMs: number[] = [];
    {
      const db = openDatabase(dbFile);
      try {
        sessionUsage(db, sessionId);
        let leaf = generated.deepestLeafId;
        for (let run = 0; run < runs; run++) {
          againMs.push(timed(() => sessionUsage(db, sessionId)).ms);
          leaf = appendTurn(source, leaf, run);
          importPath(db, source);
          appendMs.push(timed(() => sessionUsage(db, sessionId)).ms);
        }
        same &&=
          JSON.stringify(sessionUsage(db, sessionId)) ===
          JSON.stringify(sessionUsageReference(db, sessionId));
      } finally {
        db.close();
      }
    }

    // A session an older Canopy stored: the first read parses its replies and stores what they add.
    const legacyMs: number[] = [];
    const afterLegacyMs: number[] = [];
    for (let run = 0; run < runs; run++) {
      asStoredBefore(dbFile, sessionId);
      legacyMs.push(onNewConnection(dbFile, (db) => sessionUsage(db, sessionId)).ms);
      afterLegacyMs.push(onNewConnection(dbFile, (db) => sessionUsage(db, sessionId)).ms);
    }

    console.log(
      `\nsession:usage of ${fmt(generated.entries)} entries (median of ${runs}; each on a new connection unless said)` +
        `; the same totals as the old route, to the last bit: ${same ? "yes" : "NO"}\n`,
    );
    printTable(
      ["read", "ms"],
      [
        ["old route: every reply's JSON (first read)", fmt(median(oldMs))],
        ["now: the stored usage rows (first read)", fmt(median(nowMs))],
        ["now: again, same connection (totals kept)", fmt(median(againMs), 1)],
        ["now: after one appended turn, same connection", fmt(median(appendMs), 1)],
        ["now: a session stored before (its replies' JSON, stored)", fmt(median(legacyMs))],
        ["now: that session's next first read", fmt(median(afterLegacyMs))],
      ],
    );

    // Over HTTP, a new server each time: the usage asked for, and the LLM view right behind it.
    const behind = { stored: [] as number[], legacy: [] as number[], alone: [] as number[] };
    const rendererDir = tmp.dir;
    for (let run = 0; run < runs; run++) {
      for (const kind of ["stored", "legacy", "alone"] as const) {
        if (kind === "legacy") asStoredBefore(dbFile, sessionId);
        const mode = await startBrowserMode({ dbPath: dbFile, rendererDir, seedDemo: false, watch: false });
        try {
          // Warm: the server's first request, and the LLM view's reads kept by SQLite's cache.
          await apiCall(mode, "context:get", { sessionId, agentMessages: false });
          const usage = kind === "alone" ? null : apiCall(mode, "session:usage", { sessionId });
          const started = performance.now();
          await apiCall(mode, "context:get", { sessionId, agentMessages: false });
          behind[kind].push(performance.now() - started);
          await usage;
        } finally {
          await mode.stop();
        }
      }
    }
    console.log(`\ncontext:get over HTTP, a new server each run (median of ${runs})\n`);
    printTable(
      ["asked", "ms"],
      [
        ["alone", fmt(median(behind.alone))],
        ["right behind session:usage, usage stored (now)", fmt(median(behind.stored))],
        ["right behind session:usage read from JSON (the old route's work)", fmt(median(behind.legacy))],
      ],
    );
  } finally {
    tmp.cleanup();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const entries = numberArg("--entries");
  const runs = numberArg("--runs");
  await runSessionUsageBench({
    ...(entries === undefined ? {} : { entries }),
    ...(runs === undefined ? {} : { runs }),
  });
}
