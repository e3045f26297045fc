/**
 * Pipeline RUNS on the generated 100k-entry session, end to end through the API with a real
 * OpenAI-compatible server on 127.0.0.1 (the tests' fake one) and the `openai` SDK: a compaction
 * run, a branch summary, a chat reply the server fails (500, and a context overflow), pruning and
 * restoring. Each run happens in its own child process on a copy of one library, so its time and
 * peak RSS are its own; the baseline is the whole-session load (every entry parsed, a full tree
 * index) in a child of its own, measured in the same run.
 * Run: node bench/pipeline-runs.bench.ts [--runs N]
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Channel, RequestInput } from "../core/api/contract.ts";
import { createApi } from "../main/api/dispatch.ts";
import { createAppContext } from "../main/app-context.ts";
import { loadSessionState } from "../main/pipelines/session-state.ts";
import { openDatabase } from "../main/store/open.ts";
import { OVERFLOW_ERRORS, startFakeOpenAiServer } from "../test/helpers/fake-openai-server.ts";
import { fmt, importIntoNewLibrary, median, numberArg, printTable, tempDir } from "./bench-utils.ts";
import { defaultGeneratedPath, writeGeneratedSession } from "./generate-session.ts";

const OPS = {
  baseline: "baseline: whole session parsed (loadSessionState)",
  compaction: "compaction:run at the deepest leaf",
  branchNear: "navigation:navigate + summary (to a side branch near the tip)",
  branchFar: "navigation:navigate + summary (back to the first user message)",
  chat500: "chat:send, the server answers 500",
  chatOverflow: "chat:send, context overflow (compaction + retry)",
  prune: "pruning:apply + pruning:restore",
} as const;
type Op = keyof typeof OPS;

interface ChildResult {
  ms: number;
  rssBeforeMb: number;
  peakRssMb: number;
}

const rssMb = (): number => process.resourceUsage().maxRSS / 1024;

/** One operation in this process (a child): the library at `dbPath` holds the session. */
async function runChild(op: Op, dbPath: string, sessionId: string, targets: Record<string, string>): Promise<ChildResult> {
  const server = await startFakeOpenAiServer();
  const ctx = createAppContext({ dbPath, seedDemo: false, loadUserHooks: false, env: { FAKE_KEY: "sk-bench" } });
  const api = createApi(ctx);
  const call = async <C extends Channel>(channel: C, input: RequestInput<C>) => {
    const result = await api.call(channel, input);
    if (!result.ok) throw new Error(`${channel}: ${result.error.code}: ${result.error.message}`);
    return result.value;
  };
  try {
    await call("settings:set", {
      key: "model",
      value: { baseUrl: server.baseUrl, id: "fake-model", contextWindow: 200_000, apiKeyEnv: "FAKE_KEY", stream: false },
    });
    await call("settings:set", { key: "retry.maxRetries", value: 0 });
    const rssBeforeMb = rssMb();
    const started = performance.now();
    switch (op) {
      case "baseline":
        loadSessionState(ctx.db, sessionId);
        break;
      case "compaction":
        server.enqueue({ type: "reply", text: "## Goal\nBench summary." });
        await call("compaction:run", { sessionId });
        break;
      case "branchNear":
      case "branchFar":
        server.enqueue({ type: "reply", text: "Branch summary." });
        await call("navigation:navigate", {
          sessionId,
          targetId: targets[op] as string,
          summarize: true,
        });
        break;
      case "chat500":
        server.enqueue({ type: "error", status: 500, body: { error: { message: "internal error" } } });
        await call("chat:send", { sessionId, text: "Next step?" });
        break;
      case "chatOverflow":
        server.enqueue(
          { type: "error", status: 400, body: { error: { message: OVERFLOW_ERRORS.openai } }, match: (b) => !("max_tokens" in b) },
          { type: "reply", text: "## Goal\nOverflow summary.", match: (b) => "max_tokens" in b },
          { type: "reply", text: "Answer after recovery.", match: (b) => !("max_tokens" in b) },
        );
        await call("chat:send", { sessionId, text: "Next step?" });
        break;
      case "prune":
        await call("pruning:apply", { sessionId });
        await call("pruning:restore", { sessionId });
        break;
    }
    return { ms: performance.now() - started, rssBeforeMb, peakRssMb: rssMb() };
  } finally {
    ctx.db.close();
    await server.close();
  }
}

/** The navigation targets: the tip of the last side branch, and the first user message. */
function findTargets(dbPath: string, sessionId: string): Record<string, string> {
  const db = openDatabase(dbPath);
  try {
    const { sid } = db.prepare("SELECT sid FROM sessions WHERE id = ?").get(sessionId) as { sid: number };
    const firstUser = db
      .prepare("SELECT id FROM entries WHERE sid = ? AND type = 'message' AND role = 'user' ORDER BY seq LIMIT 1")
      .pluck(true)
      .get(sid) as string;
    // The last side branch's tip: the last entry nobody names as parent, other than the file's last.
    const tip = db
      .prepare(
        `SELECT e.id FROM entries AS e WHERE e.sid = ? AND e.type = 'message' AND NOT EXISTS
           (SELECT 1 FROM entries AS c WHERE c.sid = e.sid AND c.parent_id = e.id)
         ORDER BY e.seq DESC LIMIT 1 OFFSET 1`,
      )
      .pluck(true)
      .get(sid) as string;
    return { branchNear: tip, branchFar: firstUser };
  } finally {
    db.close();
  }
}

export async function runPipelineRunsBench(options: { runs?: number } = {}): Promise<void> {
  const runs = options.runs ?? 1;
  const generated = writeGeneratedSession(defaultGeneratedPath());
  const tmp = tempDir("canopy-runs-bench-");
  try {
    const library = path.join(tmp.dir, "library.db");
    const sessionId = importIntoNewLibrary(library, generated.file);
    const targets = findTargets(library, sessionId);
    const results = new Map<Op, ChildResult[]>();
    for (let run = 0; run < runs; run++) {
      for (const op of Object.keys(OPS) as Op[]) {
        const copy = path.join(tmp.dir, `run-${op}.db`);
        fs.copyFileSync(library, copy);
        const child = spawnSync(
          process.execPath,
          [fileURLToPath(import.meta.url), "--child", op, copy, sessionId, JSON.stringify(targets)],
          { encoding: "utf8", maxBuffer: 1 << 24 },
        );
        fs.rmSync(copy, { force: true });
        for (const suffix of ["-wal", "-shm"]) fs.rmSync(copy + suffix, { force: true });
        const line = child.stdout.trim().split("\n").at(-1) ?? "";
        if (child.status !== 0 || !line.startsWith("{")) throw new Error(`${op} failed:\n${child.stderr}${child.stdout}`);
        results.set(op, [...(results.get(op) ?? []), JSON.parse(line) as ChildResult]);
      }
    }
    const of = (op: Op) => {
      const list = results.get(op) ?? [];
      return {
        ms: median(list.map((r) => r.ms)),
        before: median(list.map((r) => r.rssBeforeMb)),
        peak: median(list.map((r) => r.peakRssMb)),
      };
    };
    const base = of("baseline");
    const rows = (Object.keys(OPS) as Op[]).map((op) => {
      const r = of(op);
      const ratio = op === "baseline" ? "1.0x" : `${fmt(base.ms / r.ms, 1)}x`;
      return [OPS[op], fmt(r.ms), ratio, fmt(r.before), fmt(r.peak), fmt(r.peak - r.before)];
    });
    console.log(
      `\n${generated.entries} entries (${fmt(generated.bytes / 1e6)} MB), median of ${runs} run(s), each in its own process;` +
        "\nratio = baseline ms / run ms (above 1: the whole run takes less than the whole-session load alone)\n",
    );
    printTable(["operation", "ms", "vs baseline", "RSS before MB", "peak RSS MB", "growth MB"], rows);
  } finally {
    tmp.cleanup();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const childAt = process.argv.indexOf("--child");
  if (childAt > 0) {
    const [op, dbPath, sessionId, targets] = process.argv.slice(childAt + 1) as [Op, string, string, string];
    const result = await runChild(op, dbPath, sessionId, JSON.parse(targets) as Record<string, string>);
    console.log(JSON.stringify(result));
  } else {
    await runPipelineRunsBench({ runs: numberArg("--runs") ?? 1 });
  }
}
