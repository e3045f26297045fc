// Right after a compaction the last measured usage comes from a reply older than it (SPEC §4.4):
// the app's context bar said "stale until the next reply", `canopy context` printed the figure
// bare. context:get now says so (measuredBeforeCompaction) and the CLI's header with it.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Api, createApi } from "../../main/api/dispatch.ts";
import { createAppContext } from "../../main/app-context.ts";
import { runCliCaptured } from "../helpers/cli.ts";

let dir: string;
let db: string;
let api: Api;

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "canopy-stale-measure-"));
  db = path.join(dir, "library.db");
  api = createApi(createAppContext({ dbPath: db, seedDemo: false, loadUserHooks: false, env: {} }));
});

afterEach(() => {
  api.ctx.db.close();
  rmSync(dir, { recursive: true, force: true });
});

const at = "2026-03-01T09:00:00.000Z";
const reply = (text: string, totalTokens: number) => ({
  role: "assistant",
  content: [{ type: "text", text }],
  api: "anthropic-messages",
  provider: "anthropic",
  model: "claude-test",
  usage: { input: totalTokens, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens },
  stopReason: "stop",
  timestamp: 2,
});
const line = (id: string, parentId: string | null, message: object) => ({
  type: "message",
  id,
  parentId,
  timestamp: at,
  message,
});

/** u1 → a1 (measured 5000) → compaction c1 → u2 [→ a2 (measured 900)]. */
function writeSession(name: string, replyAfter: boolean): string {
  const lines: object[] = [
    { type: "session", version: 3, id: `stale-${name}`, timestamp: at, cwd: "/w" },
    line("u1", null, { role: "user", content: "Start", timestamp: 1 }),
    line("a1", "u1", reply("Done a lot", 5000)),
    {
      type: "compaction",
      id: "c1",
      parentId: "a1",
      timestamp: at,
      summary: "Did a lot.",
      firstKeptEntryId: "a1",
      tokensBefore: 5000,
    },
    line("u2", "c1", { role: "user", content: "Go on", timestamp: 3 }),
  ];
  if (replyAfter) lines.push(line("a2", "u2", reply("Going on", 900)));
  const file = path.join(dir, `${name}.jsonl`);
  writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
  return file;
}

describe("a measurement from before the compaction in effect", () => {
  it("is said to be stale by context:get and canopy context; a reply after the compaction is not", async () => {
    const stale = writeSession("stale", false);
    const fresh = writeSession("fresh", true);
    for (const file of [stale, fresh]) {
      const imported = await api.call("library:import", { path: file });
      if (!imported.ok) throw new Error(imported.error.message);
    }
    const view = await api.call("context:get", { sessionId: "stale-stale" });
    if (!view.ok) throw new Error(view.error.message);
    expect(view.value.measuredTokens).toBe(5000);
    expect(view.value.measuredBeforeCompaction).toBe(true);
    const after = await api.call("context:get", { sessionId: "stale-fresh" });
    if (!after.ok) throw new Error(after.error.message);
    expect(after.value.measuredTokens).toBe(900);
    expect(after.value.measuredBeforeCompaction).toBeUndefined();

    const text = await runCliCaptured(["context", "stale-stale", "--db", db]);
    expect(text.code).toBe(0);
    expect(text.out.split("\n")[0]).toBe(
      "leaf u2 · 3 messages · ~8 tokens estimated · 5000 measured (before the compaction in effect: stale until the next reply)",
    );
    const freshText = await runCliCaptured(["context", "stale-fresh", "--db", db]);
    expect(freshText.out.split("\n")[0]).toMatch(/ · 900 measured$/);
  });
});
