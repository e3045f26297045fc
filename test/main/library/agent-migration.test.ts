// A v1 session the agent migrates after Canopy imported it (SPEC §1.8: the agent rewrites the file
// as v3 with fresh random ids) stays one session: the stored entries take the agent's ids, nothing
// is stored twice, and Canopy's own edits, leaf and undo history follow the new ids.
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { toJson } from "../../../core/text/json-deep.ts";
import { fixturePath } from "../../helpers/fixtures.ts";
import { prunedEntryIds } from "../../helpers/pruned-ids.ts";
import { createHarness, type Harness, removeDir } from "../pipelines/harness.ts";
import { jsonLines } from "./helpers.ts";

let h: Harness;
beforeEach(() => {
  h = createHarness();
});
afterEach(() => {
  h.close();
  removeDir(h.dir);
});

type Line = Record<string, unknown>;

/** What the agent does to a v1 file when it opens it (SPEC §1.8), written over the file. */
function migrateAsTheAgent(file: string): Line[] {
  const lines = fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as Line);
  let previous: string | null = null;
  for (const line of lines.slice(1)) {
    line.id = randomBytes(4).toString("hex");
    line.parentId = previous;
    previous = line.id as string;
  }
  for (const line of lines.slice(1)) {
    if (line.type !== "compaction" || typeof line.firstKeptEntryIndex !== "number") continue;
    const kept = lines[line.firstKeptEntryIndex];
    if (line.firstKeptEntryIndex > 0 && kept) line.firstKeptEntryId = kept.id;
    delete line.firstKeptEntryIndex;
  }
  (lines[0] as Line).version = 3;
  fs.writeFileSync(file, `${lines.map((line) => toJson(line)).join("\n")}\n`);
  return lines;
}

async function importV1(name: string): Promise<{ file: string; sessionId: string }> {
  const file = path.join(h.dir, name);
  fs.copyFileSync(fixturePath(name), file);
  const report = await h.call("library:import", { path: file });
  const sessionId = report.files[0]?.sessionId;
  if (!sessionId) throw new Error(`import of ${name} failed`);
  return { file, sessionId };
}

const countEntries = () => h.api.ctx.db.prepare("SELECT count(*) FROM entries").pluck().get() as number;

describe("a v1 file migrated by its agent after import", () => {
  it("keeps one copy of every entry, under the agent's ids, with the same LLM view and export", async () => {
    const { file, sessionId } = await importV1("real-before-compaction.v1.jsonl");
    const entries = countEntries();
    const viewBefore = await h.call("context:get", { sessionId });
    const hitsBefore = (await h.call("library:search", { query: "compaction", limit: 1000 })).hits;

    const migrated = migrateAsTheAgent(file);
    // As a folder import (the files of a folder share transactions) finds it.
    const report = await h.call("library:import", { path: path.dirname(file) });
    expect(report.files[0]).toMatchObject({ sessionId, status: "updated", entriesAdded: 0 });
    expect(report.files[0]?.problems.map((p) => p.kind)).not.toContain("file_rewritten");
    expect(countEntries()).toBe(entries);

    const tree = await h.call("session:get", { sessionId });
    expect(tree.entries.map((e) => e.entry.id)).toEqual(migrated.slice(1).map((line) => line.id));
    const viewAfter = await h.call("context:get", { sessionId });
    expect(viewAfter.messages).toEqual(viewBefore.messages);
    expect(viewAfter.leafId).toBe(migrated.at(-1)?.id);
    expect(viewAfter.firstKeptEntryId).not.toBeNull();
    expect(migrated.map((line) => line.id)).toContain(viewAfter.firstKeptEntryId);
    expect(jsonLines((await h.call("session:export", { sessionId })).text ?? "")).toEqual(migrated);
    // Search finds each message once, under its new id.
    const hits = (await h.call("library:search", { query: "compaction", limit: 1000 })).hits;
    expect(hitsBefore.length).toBeGreaterThan(0);
    expect(hits).toHaveLength(hitsBefore.length);
    const newIds = new Set(migrated.map((line) => line.id));
    expect(hits.every((hit) => newIds.has(hit.entryId))).toBe(true);
    // Importing the migrated file again changes nothing; lines the agent appends are added.
    expect((await h.call("library:import", { path: file })).files[0]?.status).toBe("unchanged");
    const last = migrated.at(-1) as Line;
    const next = { ...last, id: "feedbeef", parentId: last.id, timestamp: "2026-01-01T00:00:00.000Z" };
    fs.appendFileSync(file, `${JSON.stringify(next)}\n`);
    expect((await h.call("library:import", { path: file })).files[0]?.entriesAdded).toBe(1);
    expect(countEntries()).toBe(entries + 1);
  });

  it("Canopy's edits follow: a label, an edited message, the view leaf and undo use the agent's ids", async () => {
    const { file, sessionId } = await importV1("real-large-session.v1.jsonl");
    const before = (await h.call("session:get", { sessionId })).entries.map((e) => e.entry);
    const target = before[10]?.id as string;
    const user = before.find(
      (e, i) => i > 20 && e.type === "message" && (e.message as { role: string }).role === "user",
    );
    await h.call("edits:label", { sessionId, targetId: target, label: "here" });
    const edited = await h.call("edits:edit-message", {
      sessionId,
      entryId: user?.id as string,
      text: "Try again.",
    });
    const entries = countEntries();

    const migrated = migrateAsTheAgent(file);
    const idAt = (index: number) => migrated[index + 1]?.id as string;
    await h.call("library:import", { path: file });
    expect(countEntries()).toBe(entries);

    const after = (await h.call("session:get", { sessionId })).entries.map((e) => e.entry);
    const label = after.find((e) => e.type === "label");
    expect(label).toMatchObject({ targetId: idAt(10), label: "here" });
    const userIndex = before.indexOf(user as (typeof before)[number]);
    const mine = after.find(
      (e) => e.type === "message" && e.parentId === idAt(userIndex - 1) && e.id !== idAt(userIndex),
    );
    expect(mine).toBeDefined();
    const view = await h.call("context:get", { sessionId });
    expect(view.leafId).toBe(edited.viewLeafId);
    expect(view.messages.at(-1)).toMatchObject({ role: "user" });
    const tree = await h.call("session:get", { sessionId });
    expect(tree.problems).toEqual([]);

    // Undo takes back the edit, then the label: both found under the new ids.
    await h.call("edits:undo", { sessionId });
    await h.call("edits:undo", { sessionId });
    const undone = (await h.call("session:get", { sessionId })).entries.map((e) => e.entry);
    expect(undone.map((e) => e.id)).toEqual(migrated.slice(1).map((line) => line.id));
  });

  it("tool output Canopy pruned stays pruned on the new ids, and restoring gives the agent's lines back", async () => {
    const { file, sessionId } = await importV1("real-before-compaction.v1.jsonl");
    const pruned = await h.call("pruning:apply", { sessionId });
    expect(pruned.prunedCount).toBeGreaterThan(0);
    const view = await h.call("context:get", { sessionId });

    const migrated = migrateAsTheAgent(file);
    await h.call("library:import", { path: file });
    expect((await h.call("context:get", { sessionId })).messages).toEqual(view.messages);
    const prunedIds = prunedEntryIds(h.api.ctx.db, sessionId);
    expect(prunedIds).toHaveLength(pruned.prunedCount);
    expect(migrated.map((line) => line.id)).toEqual(expect.arrayContaining(prunedIds));
    const restored = await h.call("pruning:restore", { sessionId });
    expect(restored.prunedCount).toBe(pruned.prunedCount);
    expect(jsonLines((await h.call("session:export", { sessionId })).text ?? "")).toEqual(migrated);
  });

  it("a file whose entries differ is not taken for a migration: everything stored is kept", async () => {
    const { file, sessionId } = await importV1("real-large-session.v1.jsonl");
    const entries = countEntries();
    const migrated = migrateAsTheAgent(file);
    const changed = migrated.map((line, i) =>
      i === 5 ? { ...line, timestamp: "2020-01-01T00:00:00.000Z" } : line,
    );
    fs.writeFileSync(file, `${changed.map((line) => JSON.stringify(line)).join("\n")}\n`);
    const report = await h.call("library:import", { path: file });
    expect(report.files[0]?.problems.map((p) => p.kind)).toContain("file_rewritten");
    expect(countEntries()).toBe(entries * 2);
    expect((await h.call("session:get", { sessionId })).entries).toHaveLength(entries * 2);
  });
});

describe("a v1 file with an entry nested 20,000 deep, migrated by its agent", () => {
  it("stays one session under the agent's ids with its edit's undo data, where pairing and remapping overflowed the stack", async () => {
    const file = path.join(h.dir, "deep.v1.jsonl");
    const lines = fs.readFileSync(fixturePath("real-before-compaction.v1.jsonl"), "utf8").trimEnd().split("\n");
    const deep = `${"[".repeat(20_000)}0${"]".repeat(20_000)}`;
    lines[1] = `${(lines[1] as string).slice(0, -1)},"deepDetails":${deep}}`;
    fs.writeFileSync(file, `${lines.join("\n")}\n`);
    const sessionId = (await h.call("library:import", { path: file })).files[0]?.sessionId as string;
    // An edit of the deep message: its undo data holds the deep copy, and follows the new ids.
    const firstId = (await h.call("session:get", { sessionId })).entries[0]?.entry.id as string;
    await h.call("edits:edit-message", { sessionId, entryId: firstId, text: "edited" });
    const entries = countEntries();
    const migrated = migrateAsTheAgent(file);
    const report = await h.call("library:import", { path: file });
    expect(report.files[0]).toMatchObject({ sessionId, status: "updated", entriesAdded: 0 });
    expect(countEntries()).toBe(entries);
    const tree = await h.call("session:get", { sessionId });
    expect(tree.entries.slice(0, -1).map((e) => e.entry.id)).toEqual(migrated.slice(1).map((line) => line.id));
    expect(tree.entries.at(-1)?.entry.parentId).toBe(null);
    expect((await h.call("edits:undo", { sessionId })).operation).toBe("edit-message");
  });
});
