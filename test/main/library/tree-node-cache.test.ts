/**
 * The tree's cache of node facts (tree-node-cache.ts) is keyed by entry pk and is sound only while
 * a pk is never given to another entry (insertEntries hands pks out from a counter, even after the
 * newest entry is deleted): a label undone and set again, here or by another connection, shows
 * as the new entry, never as the facts kept for the removed one.
 */
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Channel, RequestInput, RequestOutput } from "../../../core/api/contract.ts";
import type { TreeNodeDto } from "../../../core/api/dto.ts";
import { type Api, createApi } from "../../../main/api/dispatch.ts";
import { createAppContext } from "../../../main/app-context.ts";
import { fixturePath } from "../../helpers/fixtures.ts";
import { makeTempDir } from "../store/helpers.ts";

let tmp: ReturnType<typeof makeTempDir>;
let dbPath: string;
let api: Api;
let sessionId: string;
let target: string;

beforeEach(async () => {
  tmp = makeTempDir();
  dbPath = path.join(tmp.dir, "library.db");
  api = createApi(createAppContext({ dbPath, seedDemo: false, loadUserHooks: false }));
  const report = await ok(api, "library:import", { path: fixturePath("tree-00.jsonl") });
  sessionId = report.files[0]?.sessionId as string;
  target = (await tree()).find((node) => node.kind === "user")?.id as string;
});

afterEach(() => {
  api.ctx.db.close();
  tmp.cleanup();
});

/** The call's value; a failed call fails the test with its message. */
async function ok<C extends Channel>(on: Api, channel: C, input: RequestInput<C>): Promise<RequestOutput<C>> {
  const result = await on.call(channel, input);
  if (!result.ok) throw new Error(`${channel}: ${result.error.message}`);
  return result.value;
}

async function tree(): Promise<TreeNodeDto[]> {
  return (await ok(api, "session:tree", { sessionId })).nodes;
}

const labelNodes = async () =>
  (await tree()).filter((node) => node.type === "label").map((node) => `${node.id} ${node.text}`);

/** The label entries as stored: id and label text, straight from the database. */
function storedLabels(): string[] {
  const db = new BetterSqlite3(dbPath, { readonly: true });
  try {
    const rows = db
      .prepare(
        "SELECT e.id FROM entries AS e JOIN sessions AS s ON s.sid = e.sid WHERE s.id = ? AND e.type = 'label' ORDER BY e.seq",
      )
      .all(sessionId) as { id: string }[];
    return rows.map((row) => row.id);
  } finally {
    db.close();
  }
}

describe("the tree's node facts after the newest entry is removed and another added", () => {
  it("a label undone and set again shows the new entry", async () => {
    await ok(api, "edits:label", { sessionId, targetId: target, label: "first" });
    expect((await labelNodes()).some((line) => line.endsWith("= first"))).toBe(true);
    await ok(api, "edits:undo", { sessionId });
    await ok(api, "edits:label", { sessionId, targetId: target, label: "second" });
    const nodes = await labelNodes();
    const ids = storedLabels();
    expect(nodes.map((line) => line.split(" ")[0])).toEqual(ids);
    expect(nodes.some((line) => line.endsWith("= second"))).toBe(true);
    expect(nodes.some((line) => line.endsWith("= first"))).toBe(false);
  });

  it("a label removed and another added by a second connection shows the new entry", async () => {
    await ok(api, "edits:label", { sessionId, targetId: target, label: "first" });
    expect((await labelNodes()).some((line) => line.endsWith("= first"))).toBe(true);
    // Another program (the CLI) undoes it and labels again: its own connection.
    const other = createApi(createAppContext({ dbPath, seedDemo: false, loadUserHooks: false }));
    try {
      await ok(other, "edits:undo", { sessionId });
      await ok(other, "edits:label", { sessionId, targetId: target, label: "second" });
    } finally {
      other.ctx.db.close();
    }
    const nodes = await labelNodes();
    expect(nodes.map((line) => line.split(" ")[0])).toEqual(storedLabels());
    expect(nodes.some((line) => line.endsWith("= second"))).toBe(true);
  });
});
