// Prune apply and restore next to another connection's write to the same session (a CLI's prune
// or restore, the import runner's thread): the rows they act on are read under their own write
// lock, so a write committed while they waited for it is neither undone nor left out. The other
// connection holds its transaction open on a thread of its own while this one prunes.
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { requireSession } from "../../../main/library/load.ts";
import { applyPrune, restorePruned } from "../../../main/pipelines/pruning.ts";
import { entryJsonByPk } from "../../../main/store/repos/entries.ts";
import { listPrunedEntryRows } from "../../../main/store/repos/entry-json.ts";
import { createHarness, type Harness, importText, removeDir, SessionFile, sized } from "./harness.ts";

const HELD_PRUNE = fileURLToPath(new URL("../../helpers/held-prune-worker.ts", import.meta.url));

let h: Harness;
let sessionId: string;

beforeEach(async () => {
  h = createHarness();
  // Five outputs of 15,000 tokens: the default rule prunes t1 and t2 (the newest 40,000 are kept).
  const file = new SessionFile().user("u1", "Run the build.");
  for (let i = 1; i <= 5; i++) {
    file
      .assistant(`a${i}`, "", { calls: [{ name: "bash", args: { command: `make ${i}` }, id: `call${i}` }] })
      .toolResult(`t${i}`, sized(`log ${i}`, 15_000), "bash", `call${i}`);
  }
  sessionId = await importText(h, file.text(), "builds");
});
afterEach(() => {
  h.close();
  removeDir(h.dir);
});

/**
 * Another connection prunes (keeping the newest `protectTokens`) or restores the session and
 * holds its transaction open for 500 ms; resolves once it holds it, with the entries it changed.
 */
async function writeElsewhere(
  action: "prune" | "restore",
  protectTokens = 40_000,
): Promise<{ entryIds: string[]; committed: Promise<void> }> {
  const worker = new Worker(HELD_PRUNE, {
    workerData: { dbPath: h.dbPath, sessionId, action, protectTokens, holdMs: 500 },
  });
  const heard = <T>(kind: string) =>
    new Promise<T>((resolve, reject) => {
      worker.on("message", (message: { kind: string } & T) => {
        if (message.kind === kind) resolve(message);
      });
      worker.on("error", reject);
    });
  const committed = heard<object>("committed").then(() => undefined);
  const { entryIds } = await heard<{ entryIds: string[] }>("holding");
  return { entryIds, committed: committed.finally(() => worker.terminate()) };
}

function prunedIds(): string[] {
  const { sid } = requireSession(h.api.ctx.db, sessionId);
  return listPrunedEntryRows(h.api.ctx.db, sid)
    .map((row) => row.id)
    .sort();
}

/** The stored text of entry `id` (its JSON as the library holds it now). */
function storedJson(id: string): string {
  const pk = h.api.ctx.db.prepare("SELECT pk FROM entries WHERE id = ?").pluck().get(id) as number;
  // A restored entry may read its block's text again (no entry_json row): as any reader reads it.
  return entryJsonByPk(h.api.ctx.db, [pk])[0] as string;
}

describe("a restore while another connection prunes more of the session", () => {
  it("restores the outputs that connection pruned too: nothing is left pruned", async () => {
    expect(applyPrune(h.api.ctx, sessionId).prunedCount).toBe(2);
    expect(prunedIds()).toEqual(["t1", "t2"]);
    // That connection prunes t3 and t4 as well (it keeps only the newest output).
    const other = await writeElsewhere("prune", 15_000);
    expect(other.entryIds.sort()).toEqual(["t3", "t4"]);
    const restored = restorePruned(h.api.ctx, sessionId);
    await other.committed;
    expect(prunedIds()).toEqual([]);
    expect(restored.prunedCount).toBe(4);
    expect(storedJson("t3")).toContain(sized("log 3", 15_000));
  });
});

describe("a prune while another connection prunes the same outputs", () => {
  it("finds them pruned: prunes nothing and keeps that connection's notices", async () => {
    const other = await writeElsewhere("prune");
    expect(other.entryIds).toEqual(["t1", "t2"]);
    const pruned = applyPrune(h.api.ctx, sessionId);
    await other.committed;
    expect(pruned).toMatchObject({ prunedCount: 0 });
    expect(prunedIds()).toEqual(["t1", "t2"]);
  });
});

describe("a prune while another connection restores the outputs pruned before", () => {
  it("plans on what is stored once it writes: the restored outputs are pruned again", async () => {
    expect(applyPrune(h.api.ctx, sessionId).prunedCount).toBe(2);
    expect(prunedIds()).toEqual(["t1", "t2"]);
    const other = await writeElsewhere("restore");
    expect(other.entryIds.sort()).toEqual(["t1", "t2"]);
    const pruned = applyPrune(h.api.ctx, sessionId);
    await other.committed;
    expect(pruned.prunedCount).toBe(2);
    expect(prunedIds()).toEqual(["t1", "t2"]);
    expect(storedJson("t1")).toContain("[Output truncated - 15000 tokens]");
  });
});
