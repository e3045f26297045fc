// Seeded random sequences of Canopy's edits with undo/redo interleaved, on copies of the real
// fixtures (and, between edits, lines the agent appends to its file): undoing everything gives
// back the export of the file as imported, and redoing everything gives back what was undone.
import fs from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SessionEntry } from "../../../core/session/entries.ts";
import { seededRandom } from "../../helpers/seeded-random.ts";
import { copyFixture } from "../library/helpers.ts";
import { createHarness, type Harness, removeDir } from "../pipelines/harness.ts";

let h: Harness;
beforeEach(() => {
  h = createHarness();
});
afterEach(() => {
  h.close();
  removeDir(h.dir);
});

const rng = seededRandom;

interface State {
  plain: string;
  archivedOut: string;
  title: string | null;
  viewLeafId: string | null;
  deleted: boolean;
}

/** The export without the id and time of the session_info line a rename writes (new on every export). */
function stable(text: string): string {
  return text.replace(
    /^\{"type":"session_info","id":"[^"]*","parentId":("[^"]*"|null),"timestamp":"[^"]*"/gm,
    '{"type":"session_info","id":"*","parentId":$1,"timestamp":"*"',
  );
}

async function state(sessionId: string): Promise<State> {
  const deleted = (await h.call("library:list", { deleted: true })).some((s) => s.id === sessionId);
  if (deleted) await h.call("library:restore", { sessionId });
  const plain = stable((await h.call("session:export", { sessionId })).text ?? "");
  const archivedOut = stable(
    (await h.call("session:export", { sessionId, withoutArchived: true })).text ?? "",
  );
  const { summary } = await h.call("session:get", { sessionId });
  const title = summary.title ?? null;
  const { viewLeafId } = summary;
  if (deleted) await h.call("library:delete", { sessionId });
  return { plain, archivedOut, title, viewLeafId, deleted };
}

/** The lines of `actual` and `expected` that differ, shortened (what a failure shows). */
function lineDiff(actual: string, expected: string): string {
  const a = actual.split("\n");
  const b = expected.split("\n");
  const inB = new Set(b);
  const inA = new Set(a);
  const short = (l: string) => (l.length > 160 ? `${l.slice(0, 160)}…` : l);
  const extra = a.filter((l) => !inB.has(l)).map((l) => `+ ${short(l)}`);
  const missing = b.filter((l) => !inA.has(l)).map((l) => `- ${short(l)}`);
  const order =
    extra.length === 0 && missing.length === 0 && actual !== expected ? ["(same lines, other order)"] : [];
  return [...extra, ...missing, ...order].slice(0, 20).join("\n");
}

async function entries(sessionId: string): Promise<SessionEntry[]> {
  return (await h.call("session:get", { sessionId })).entries.map((s) => s.entry);
}

const FIXTURES = ["tree-00.jsonl", "tree-01.omp.jsonl", "tree-02.jsonl", "real-before-compaction.v1.jsonl"];
/** Seeds per fixture: fewer on the 1000-line v1 file (a sequence there takes seconds). */
const seedsFor = (name: string) => (name.includes(".v1.") ? [1, 2] : [1, 2, 3, 4, 5]);

/** Whether `part`'s lines all appear in `whole`, in the same order. */
function isSubsequence(part: string, whole: string): boolean {
  const lines = whole.split("\n");
  let at = 0;
  for (const line of part.split("\n")) {
    while (at < lines.length && lines[at] !== line) at++;
    if (at === lines.length) return false;
    at++;
  }
  return true;
}

describe.each(FIXTURES)("random edit sequences on %s", (name) => {
  it.each(seedsFor(name))(
    "seed %i: undo all gives the import back, redo all gives the edits back",
    async (seed) => {
      await randomSequence(name, seed, false);
    },
  );
});

// With what undo never removes in between: compactions, branch summaries (navigate --summarize
// with the offline summarizer), pruning, moving the view leaf. Undoing everything leaves every
// line of the file as it was, in order; redoing everything gives back the edited session.
describe.each(["tree-02.jsonl", "real-before-compaction.v1.jsonl"])(
  "random sequences with summaries on %s",
  (name) => {
    it.each(seedsFor(name).slice(0, 3))("seed %i", async (seed) => {
      await randomSequence(name, seed, true);
    });
  },
);

async function randomSequence(name: string, seed: number, writes: boolean): Promise<void> {
  {
    const random = rng(seed * 7919 + name.length + (writes ? 1 : 0));
    const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
    const file = copyFixture(name, h.dir, `s-${seed}.jsonl`);
    const report = await h.call("library:import", { path: file });
    const sessionId = report.files[0]?.sessionId as string;
    let appended = 0;
    const log: string[] = [];
    for (let step = 0; step < 25; step++) {
      if ((await h.call("library:list", { deleted: true })).some((s) => s.id === sessionId)) {
        log.push("restore (deleted by a redo)");
        await h.call("library:restore", { sessionId });
      }
      const list = await entries(sessionId);
      const ids = list.map((e) => e.id);
      const users = list.filter(
        (e) => e.type === "message" && (e.message as { role?: string }).role === "user",
      );
      const summaries = list.filter((e) => e.type === "compaction" || e.type === "branch_summary");
      const r = random();
      try {
        if (r < 0.15 && users.length > 0) {
          const u = pick(users);
          log.push(`edit ${u.id}`);
          await h.call("edits:edit-message", { sessionId, entryId: u.id, text: `edit ${step}` });
        } else if (r < 0.25) {
          const id = pick(ids);
          const label = random() < 0.3 ? null : `l${step}`;
          log.push(`label ${id} ${label}`);
          await h.call("edits:label", { sessionId, targetId: id, label });
        } else if (r < 0.3) {
          const title = random() < 0.3 ? null : `title ${step}`;
          log.push(`rename ${title}`);
          await h.call("edits:rename", { sessionId, title });
        } else if (r < 0.4) {
          const id = pick(ids);
          log.push(`archive ${id}`);
          await h.api.call("edits:archive", { sessionId, entryId: id, confirm: true });
          log.push(`unarchive? ${id}`);
          if (random() < 0.3) await h.api.call("edits:unarchive", { sessionId, entryId: id });
        } else if (r < 0.45) {
          const id = pick(ids);
          log.push(`fork ${id}`);
          await h.call("edits:fork", { sessionId, entryId: id });
        } else if (r < 0.5 && summaries.length > 0) {
          const s = pick(summaries);
          log.push(`undo-summary ${s.id}`);
          await h.call("edits:undo-summary", { sessionId, entryId: s.id });
        } else if (r < 0.55) {
          log.push("delete+maybe restore");
          await h.call("library:delete", { sessionId });
          if (random() < 0.5) await h.call("library:restore", { sessionId });
          else {
            log.push("undo (of delete)");
            await h.call("edits:undo", { sessionId });
          }
        } else if (r < 0.6 && !name.includes(".v1.")) {
          // The agent appends a line to its file, below its own last line; then a re-import.
          const lines = fs.readFileSync(file, "utf8").trimEnd().split("\n");
          const parent = (JSON.parse(lines[lines.length - 1] as string) as { id?: string }).id ?? null;
          const id = `agent${seed}x${appended++}`;
          const line = {
            type: "message",
            id,
            parentId: parent,
            timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, appended)).toISOString(),
            message: { role: "user", content: `appended ${appended}`, timestamp: 1767225600000 + appended },
          };
          fs.appendFileSync(file, `${JSON.stringify(line)}\n`);
          log.push(`append ${id}`);
          await h.call("library:import", { path: file });
        } else if (writes && r < 0.65) {
          const id = pick(ids.filter((_, i) => list[i]?.type !== "label"));
          log.push(`navigate --summarize ${id}`);
          await h.call("navigation:navigate", { sessionId, targetId: id, summarize: random() < 0.7 });
        } else if (writes && r < 0.7) {
          log.push("compact");
          await h.api.call("compaction:run", { sessionId });
        } else if (writes && r < 0.75) {
          const restore = random() < 0.3;
          log.push(restore ? "prune --restore" : "prune");
          await h.call(restore ? "pruning:restore" : "pruning:apply", { sessionId });
        } else if (r < 0.85) {
          log.push("undo");
          await h.api.call("edits:undo", { sessionId });
        } else {
          log.push("redo");
          await h.api.call("edits:redo", { sessionId });
        }
      } catch (error) {
        throw new Error(`seed ${seed} step ${step}: ${String(error)}\n${log.join("\n")}`);
      }
    }
    // Undo everything, redo everything.
    const edited = await state(sessionId);
    if (writes) await h.call("pruning:restore", { sessionId });
    const editedRestored = await state(sessionId);
    const fresh = createHarness();
    try {
      const report2 = await fresh.call("library:import", { path: file });
      const freshId = report2.files[0]?.sessionId as string;
      const original = stable((await fresh.call("session:export", { sessionId: freshId })).text ?? "");
      let undos = 0;
      for (;;) {
        const out = await h.api.call("edits:undo", { sessionId });
        if (!out.ok) throw new Error(`undo failed: ${out.error.message}\n${log.join("\n")}`);
        if (out.value.operation === null) break;
        undos++;
      }
      if (writes) {
        // Pruning is no undo step: its own restore puts the outputs back.
        await h.call("pruning:restore", { sessionId });
        const undone = await state(sessionId);
        expect(isSubsequence(original, undone.plain), log.join("\n")).toBe(true);
        for (let i = 0; i < undos; i++) {
          const out = await h.api.call("edits:redo", { sessionId });
          if (!out.ok) throw new Error(`redo failed: ${out.error.message}\n${log.join("\n")}`);
        }
        const redone = await state(sessionId);
        expect(lineDiff(redone.plain, editedRestored.plain), log.join("\n")).toBe("");
        // Not the view leaf: undo and redo of "undo summary" set it wherever the user moved it since.
        expect({ ...redone, viewLeafId: null }, log.join("\n")).toEqual({
          ...editedRestored,
          viewLeafId: null,
        });
        return;
      }
      const undone = await state(sessionId);
      expect(undone.deleted, log.join("\n")).toBe(false);
      expect(lineDiff(undone.plain, original ?? ""), log.join("\n")).toBe("");
      expect(lineDiff(undone.archivedOut, original ?? ""), log.join("\n")).toBe("");
      const { summary } = await fresh.call("session:get", { sessionId: freshId });
      expect(undone.title).toBe(summary.title ?? null);
      expect(undone.viewLeafId, log.join("\n")).toBe(summary.viewLeafId);
      for (let i = 0; i < undos; i++) {
        const out = await h.api.call("edits:redo", { sessionId });
        if (!out.ok) throw new Error(`redo failed: ${out.error.message}\n${log.join("\n")}`);
      }
      const redone = await state(sessionId);
      expect(lineDiff(redone.plain, edited.plain), log.join("\n")).toBe("");
      expect(lineDiff(redone.archivedOut, edited.archivedOut), log.join("\n")).toBe("");
      expect(redone, log.join("\n")).toEqual(edited);
    } finally {
      fresh.close();
      removeDir(fresh.dir);
    }
  }
}
