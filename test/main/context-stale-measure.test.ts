// Right after a compaction the last measured usage comes from a reply older than it (SPEC §4.4):
// the app's context bar said "stale until the next reply", `canopy context` printed the figure
// bare. context:get now says so (measuredBeforeCompaction) and the CLI's header with it.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Api, createApi } from "../../main/api/dispatch.ts";
import { createAppContext } from "../../main/app-context.ts";
import { runCliCaptured } from "../helpers/cli.ts";
import { writeStaleMeasureSession } from "../helpers/stale-measure-session.ts";

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

/** The stale-measure session (u1 → a1 → c1 → u2 [→ a2]) as `stale-<name>`, written out; its file. */
const writeSession = (name: string, replyAfter: boolean): string =>
  writeStaleMeasureSession(path.join(dir, `${name}.jsonl`), `stale-${name}`, replyAfter);

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
