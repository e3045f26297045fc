// A session with tree problems (duplicate ids, cycles, orphans, …) and the undo of an append keep
// the cached figures up to date from the rows they touch, not from a recount of every row; after
// every action the figures equal a full recount — on the fixtures, on generated sessions with
// problems added, and in a seeded random run of appends, undos and redos.
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { generateSession } from "../../../bench/generate-session.ts";
import type { MessageEntry, SessionEntry } from "../../../core/session/entries.ts";
import { refreshLiveSource } from "../../../main/library/live-source.ts";
import { getViewLeaf, loadSessionEntries, requireSession, resetViewLeaf } from "../../../main/library/load.ts";
import { appendSessionEntries } from "../../../main/library/write.ts";
import { appendMessageChain } from "../../../main/pipelines/persist.ts";
import { fixtureTexts } from "../../helpers/fixtures.ts";
import {
  createHarness,
  expectRecounted,
  type Harness,
  importText,
  readsDuring,
  removeDir,
} from "../pipelines/harness.ts";

let h: Harness;
beforeEach(() => {
  h = createHarness();
});
afterEach(() => {
  h.close();
  removeDir(h.dir);
});

const at = "2025-01-01T00:00:00.000Z";
const line = (entry: Record<string, unknown>) => JSON.stringify({ timestamp: at, ...entry });
const user = (id: string, parentId: string | null, text: string) =>
  ({
    type: "message",
    id,
    parentId,
    timestamp: at,
    message: { role: "user", content: text, timestamp: 1 },
  }) as SessionEntry;

/** A v3 session's text with one problem of every kind after its lines (parents: its entries). */
function addProblems(text: string): { text: string; missingParent: string } {
  const lines = text.trimEnd().split("\n");
  const ids = lines.slice(1).map((l) => (JSON.parse(l) as { id: string }).id);
  const some = ids[Math.floor(ids.length / 2)] as string;
  const userMessage = (id: string, parentId: unknown) =>
    line({ type: "message", id, parentId, message: { role: "user", content: `q ${id}`, timestamp: 1 } });
  lines.push(
    userMessage("orphan01", "gone0001"), // orphan
    userMessage(some, ids[3]), // duplicate id (this one wins in the tree)
    userMessage("cyc00001", "cyc00002"), // a two-entry cycle
    userMessage("cyc00002", "cyc00001"),
    userMessage("self0001", "self0001"), // self-parent
    line({ type: "mystery", id: "odd00001", parentId: some }), // unknown type
    userMessage("intpar01", 5), // a parentId that is no link
    line({ type: "label", parentId: some, targetId: some, label: "x" }), // no id
  );
  return { text: `${lines.join("\n")}\n`, missingParent: "gone0001" };
}

function withProblems(count: number, seed = 42): { text: string; missingParent: string } {
  return addProblems(generateSession(count, { seed }).text);
}

const fixtures = fixtureTexts();

/** A seeded random run of Canopy's appends, undos and redos, checked against a recount each step. */
async function randomRun(sessionId: string, seed: number, steps: number): Promise<void> {
  const { ctx } = h.api;
  let state = seed >>> 0;
  const random = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 4294967296;
  };
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  for (let step = 0; step < steps; step++) {
    const entries = loadSessionEntries(ctx.db, sessionId).filter((e) => typeof e.id === "string");
    const users = entries.filter((e) => e.type === "message" && (e as MessageEntry).message.role === "user");
    const action = pick(["label", "edit", "chat", "undo", "undo", "redo"] as const);
    if (action === "label" && entries.length > 0) {
      await h.api.call("edits:label", { sessionId, targetId: pick(entries).id, label: `l${step}` });
    } else if (action === "edit" && users.length > 0) {
      await h.api.call("edits:edit-message", { sessionId, entryId: pick(users).id, text: `edit ${step}` });
    } else if (action === "chat") {
      const leafId = entries.length > 0 ? pick(entries).id : null;
      appendMessageChain(ctx, { sessionId, leafId, viewLeafId: getViewLeaf(ctx.db, sessionId) }, [
        { role: "user", content: `turn ${step}`, timestamp: 1 },
      ]);
    } else if (action === "undo" || action === "redo") {
      // A refusal (a label with a reply below it) changes nothing, which is checked all the same.
      await h.api.call(action === "undo" ? "edits:undo" : "edits:redo", { sessionId });
    }
    expectRecounted(h, sessionId, `step ${step}: ${action}`);
  }
}

describe("figures equal a full recount after every action", () => {
  it.each(fixtures)("%s: a seeded run of appends, undos and redos", async (name, text) => {
    const sessionId = await importText(h, text, name);
    expectRecounted(h, sessionId, "import");
    await randomRun(sessionId, name.length * 7919, 40);
  });

  it.each(fixtures.filter(([name]) => name.startsWith("tree-")))(
    "%s with every kind of problem added: a seeded run",
    async (name, text) => {
      const sessionId = await importText(h, addProblems(text).text, name);
      expect(requireSession(h.api.ctx.db, sessionId).problem_count).toBeGreaterThanOrEqual(7);
      expectRecounted(h, sessionId, "import");
      await randomRun(sessionId, name.length * 104729, 40);
    },
  );

  it.each([1, 2, 3])("a generated session with every kind of problem, seed %i", async (seed) => {
    const { text } = withProblems(400, seed);
    const sessionId = await importText(h, text, `problems-${seed}`);
    expect(requireSession(h.api.ctx.db, sessionId).problem_count).toBeGreaterThanOrEqual(7);
    expectRecounted(h, sessionId, "import");
    await randomRun(sessionId, seed, 60);
  });

  it("an append that gives an orphan its parent, or names a problem entry, still settles like a recount", async () => {
    const { text, missingParent } = withProblems(200);
    const sessionId = await importText(h, text, "problems");
    const { db } = h.api.ctx;
    const problems = requireSession(db, sessionId).problem_count;
    appendSessionEntries(db, sessionId, [user("child001", "cyc00001", "below a cycle")]);
    expectRecounted(h, sessionId, "child of a cycle member");
    appendSessionEntries(db, sessionId, [user("child002", "self0001", "below a self-parent")]);
    expectRecounted(h, sessionId, "child of a self-parent");
    expect(requireSession(db, sessionId).problem_count).toBe(problems);
    appendSessionEntries(db, sessionId, [user(missingParent, "child001", "the orphan's parent")]);
    expectRecounted(h, sessionId, "the orphan's parent arrives");
    expect(requireSession(db, sessionId).problem_count).toBe(problems - 1);
  });
});

describe("the agent appending to a file with tree problems (live re-import)", () => {
  it("keeps the figures from the new lines, and settles an orphan's parent like a recount", async () => {
    const { text, missingParent } = addProblems(generateSession(3000).text);
    const sessionId = await importText(h, text, "live-problems");
    const { ctx } = h.api;
    const file = path.join(h.dir, "live-problems.jsonl");
    const problems = requireSession(ctx.db, sessionId).problem_count;
    const append = (entry: SessionEntry) => fs.appendFileSync(file, `${JSON.stringify(entry)}\n`);
    append(user("live0001", "cyc00001", "first"));
    expect((await refreshLiveSource(ctx, sessionId))?.entriesAdded).toBe(1);
    expectRecounted(h, sessionId, "first live append");
    append(user("live0002", "live0001", "second"));
    const cost = await readsDuring(ctx.db, async () =>
      expect((await refreshLiveSource(ctx, sessionId))?.entriesAdded).toBe(1),
    );
    expect(cost.rows).toBeLessThan(200);
    expectRecounted(h, sessionId, "second live append");
    expect(requireSession(ctx.db, sessionId).problem_count).toBe(problems);
    append(user(missingParent, "live0002", "the orphan's parent"));
    expect((await refreshLiveSource(ctx, sessionId))?.entriesAdded).toBe(1);
    expectRecounted(h, sessionId, "the orphan's parent");
    expect(requireSession(ctx.db, sessionId).problem_count).toBe(problems - 1);
  });
});

describe("the cost of an append or an undo on a long session", () => {
  const ENTRIES = 3000;

  async function costs(sessionId: string): Promise<Record<string, { rows: number; parsed: number }>> {
    const { ctx } = h.api;
    const leaf = () => requireSession(ctx.db, sessionId).last_leaf_id;
    const target = () => ({ sessionId, leafId: leaf(), viewLeafId: getViewLeaf(ctx.db, sessionId) });
    const out: Record<string, { rows: number; parsed: number }> = {};
    out.chat = await readsDuring(ctx.db, () =>
      appendMessageChain(ctx, target(), [{ role: "user", content: "Next step?", timestamp: 1 }]),
    );
    out.label = await readsDuring(ctx.db, () =>
      h.call("edits:label", { sessionId, targetId: leaf() as string, label: "here" }),
    );
    out["undo label"] = await readsDuring(ctx.db, () => h.call("edits:undo", { sessionId }));
    out["redo label"] = await readsDuring(ctx.db, () => h.call("edits:redo", { sessionId }));
    const firstUser = loadSessionEntries(ctx.db, sessionId).find(
      (e) => e.type === "message" && (e as MessageEntry).message.role === "user",
    ) as SessionEntry;
    await h.call("edits:edit-message", { sessionId, entryId: firstUser.id, text: "Edited" });
    out["undo edit"] = await readsDuring(ctx.db, () => h.call("edits:undo", { sessionId }));
    // An edit answered since: its undo hides the branch (and finds the view leaf below it).
    // (The label above kept the view leaf in place by setting it, D15: without a file leaf, it is
    // made to follow the last entry again, as before the label.)
    const follows = requireSession(ctx.db, sessionId).file_leaf_id === null;
    if (follows) resetViewLeaf(ctx.db, sessionId);
    const leafBefore = getViewLeaf(ctx.db, sessionId);
    const copy = await h.call("edits:edit-message", { sessionId, entryId: firstUser.id, text: "Again" });
    appendMessageChain(ctx, target(), [{ role: "user", content: "More", timestamp: 1 }]);
    expect(getViewLeaf(ctx.db, sessionId)).not.toBe(copy.entryId);
    out["undo answered edit"] = await readsDuring(ctx.db, async () => {
      expect((await h.call("edits:undo", { sessionId })).viewLeafId).toBe(
        // Without a file leaf the view leaf follows the last entry, which is in the hidden branch:
        // it stays where the edit branched off instead.
        follows ? firstUser.parentId : leafBefore,
      );
    });
    return out;
  }

  it.each([
    ["without problems", () => generateSession(ENTRIES).text],
    ["with tree problems", () => withProblems(ENTRIES).text],
  ])("%s: reads the rows it touches, not a row per entry", async (_name, make) => {
    const sessionId = await importText(h, make(), "long");
    // A recount read a row per entry (and parsed every compaction and session name).
    for (const [kind, cost] of Object.entries(await costs(sessionId))) {
      expect(cost.rows, kind).toBeLessThan(200);
      expect(cost.parsed, kind).toBeLessThan(20);
    }
    expectRecounted(h, sessionId, "after the actions");
  });
});
