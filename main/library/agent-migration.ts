/**
 * A v1 session file its agent has since migrated (SPEC §1.8: rewritten as v3, every entry with a
 * fresh random id) is the same session. Canopy gave those entries deterministic ids when it
 * imported the v1 file, so matching by id would store every entry a second time. Here the stored
 * file entries are paired with the file's, in order and by content, and take over the agent's ids
 * everywhere the library refers to them (parents, Canopy's own entries, leaves, archive, undo).
 */
import { isDeepStrictEqual } from "node:util";
import type { SessionEntry } from "../../core/session/entries.ts";
import type { Database } from "../store/open.ts";
import { type EntryRow, insertEntries, listEntryRows } from "../store/repos/entries.ts";
import { replaceEntryJson } from "../store/repos/entry-json.ts";
import type { SessionRow } from "../store/repos/sessions.ts";
import { entryTokens, toEntryRow } from "./entry-rows.ts";
import type { SessionSource } from "./import-source.ts";
import { toJson } from "../../core/text/json-deep.ts";

/** Fields that hold entry ids (of the entry itself or of others) in any entry type. */
const ID_FIELDS = ["id", "parentId", "firstKeptEntryId", "fromId", "targetId"] as const;

interface Pair {
  stored: EntryRow;
  entry: SessionEntry;
  json: string;
}

type JsonObject = Record<string, unknown>;

function withoutIds(value: JsonObject): JsonObject {
  const copy = { ...value };
  for (const field of ID_FIELDS) delete copy[field];
  delete copy.firstKeptEntryIndex;
  return copy;
}

/** The stored entry as Canopy read it (before any change of its own, e.g. pruning). */
function storedAsRead(row: EntryRow): JsonObject {
  return JSON.parse(row.original_json ?? row.json) as JsonObject;
}

/** True when the stored session was a v1 file that now comes back migrated by its agent. */
export function isAgentMigration(row: SessionRow, source: SessionSource): boolean {
  return row.original_version < 2 && source.originalVersion >= 2 && row.header_id === source.header.id;
}

/**
 * Pairs every stored file entry with the file's entry at the same position; null unless all of
 * them pair: same content apart from ids, and the same links (parent, first kept entry) once the
 * ids are mapped.
 */
function pairEntries(stored: readonly EntryRow[], source: SessionSource): Pair[] | null {
  const pairs: Pair[] = [];
  for (const chunk of source.chunks()) {
    for (let i = 0; i < chunk.entries.length && pairs.length < stored.length; i++) {
      const entry = (chunk.entries[i] as { entry: SessionEntry }).entry;
      const row = stored[pairs.length] as EntryRow;
      if (typeof entry.id !== "string" || entry.type !== row.type) return null;
      if (!sameContent(withoutIds(entry as JsonObject), withoutIds(storedAsRead(row)))) return null;
      pairs.push({ stored: row, entry, json: chunk.jsonAt(i) });
    }
    if (pairs.length === stored.length) break;
  }
  if (pairs.length !== stored.length) return null;
  const ids = new Map(pairs.map((p) => [p.stored.id as string, p.entry.id as string]));
  const mapped = (id: unknown) => (typeof id === "string" ? (ids.get(id) ?? id) : (id ?? null));
  for (const { stored: row, entry } of pairs) {
    const read = storedAsRead(row);
    if ((entry.parentId ?? null) !== mapped(read.parentId)) return null;
    if ((entry as JsonObject).firstKeptEntryId !== (mapped(read.firstKeptEntryId) ?? undefined)) return null;
  }
  return pairs;
}

/**
 * isDeepStrictEqual, which recurses: an entry nested thousands of levels deep is compared by its
 * JSON text instead (the same value written in another key order then counts as different).
 */
function sameContent(a: JsonObject, b: JsonObject): boolean {
  try {
    return isDeepStrictEqual(a, b);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return toJson(a) === toJson(b);
  }
}

/** Every string in `value` that is an old id, replaced by the new one (undo data, any shape). */
function remapDeep(value: unknown, ids: ReadonlyMap<string, string>): unknown {
  // An explicit stack, not recursion: undo data may hold an entry nested thousands of levels deep.
  const map = (item: unknown): unknown => (typeof item === "string" ? (ids.get(item) ?? item) : item);
  const copyOf = (item: unknown): unknown =>
    Array.isArray(item) ? [...item] : item !== null && typeof item === "object" ? { ...item } : map(item);
  const root = copyOf(value);
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const holder = stack.pop() as Record<string, unknown> | unknown[];
    if (holder === null || typeof holder !== "object") continue;
    for (const key of Object.keys(holder)) {
      const next = copyOf((holder as Record<string, unknown>)[key]);
      (holder as Record<string, unknown>)[key] = next;
      if (next !== null && typeof next === "object") stack.push(next);
    }
  }
  return root;
}

/** An entry's JSON text with its id fields mapped (other fields, and their order, as they were). */
function remapEntryJson(json: string, ids: ReadonlyMap<string, string>): string {
  const entry = JSON.parse(json) as JsonObject;
  let changed = false;
  for (const field of ID_FIELDS) {
    const value = entry[field];
    const next = typeof value === "string" ? ids.get(value) : undefined;
    if (next !== undefined) {
      entry[field] = next;
      changed = true;
    }
  }
  return changed ? toJson(entry) : json;
}

/**
 * Re-keys the session to the agent's ids when the file pairs with what is stored (call inside
 * the import's write transaction, before merging). Returns false (nothing changed) otherwise.
 */
export function adoptAgentMigration(db: Database, row: SessionRow, source: SessionSource): boolean {
  const { sid } = row;
  const all = listEntryRows(db, sid);
  const stored = all.filter((r) => r.origin === "file" && r.id !== null);
  if (stored.length === 0) return false;
  const pairs = pairEntries(stored, source);
  if (pairs === null) return false;
  const ids = new Map(pairs.map((p) => [p.stored.id as string, p.entry.id as string]));

  // The file's entries replace the stored ones at the same place, with the agent's text.
  const deleteRow = db.prepare("DELETE FROM entries WHERE pk = ?");
  for (const { stored: old } of pairs) deleteRow.run(old.pk);
  insertEntries(
    db,
    sid,
    pairs.map((p) => toEntryRow(p.entry, p.stored.seq, p.json, "file")),
  );
  // A change Canopy made to an entry (pruning, D9) stays, on the entry's new id.
  for (const { stored: old, entry } of pairs) {
    if (old.original_json === null) continue;
    const changed = remapEntryJson(old.json, ids);
    replaceEntryJson(db, sid, entry.id as string, changed, entryTokens(JSON.parse(changed) as SessionEntry));
  }
  // Canopy's own entries point at the file's entries by id.
  const setParent = db.prepare("UPDATE entries SET parent_id = ? WHERE pk = ?");
  const setJson = db.prepare(
    `INSERT INTO entry_json (pk, json, original_json) VALUES (?, ?, ?)
     ON CONFLICT (pk) DO UPDATE SET json = excluded.json, original_json = excluded.original_json, original_in_block = 0`,
  );
  for (const own of all) {
    if (own.origin !== "canopy") continue;
    if (own.parent_id !== null && ids.has(own.parent_id)) setParent.run(ids.get(own.parent_id), own.pk);
    const json = remapEntryJson(own.json, ids);
    const original = own.original_json === null ? null : remapEntryJson(own.original_json, ids);
    if (json !== own.json || original !== own.original_json) setJson.run(own.pk, json, original);
  }
  const mapId = (id: string | null) => (id === null ? null : (ids.get(id) ?? id));
  db.prepare("UPDATE sessions SET view_leaf_id = ?, file_leaf_id = ?, last_leaf_id = ? WHERE sid = ?").run(
    mapId(row.view_leaf_id),
    mapId(row.file_leaf_id),
    mapId(row.last_leaf_id),
    sid,
  );
  const archived = db
    .prepare("SELECT entry_id FROM archived_entries WHERE sid = ?")
    .pluck()
    .all(sid) as string[];
  const rename = db.prepare("UPDATE archived_entries SET entry_id = ? WHERE sid = ? AND entry_id = ?");
  for (const id of archived) if (ids.has(id)) rename.run(ids.get(id), sid, id);
  const ops = db.prepare("SELECT op_id, data_json FROM edit_ops WHERE sid = ?").all(sid) as {
    op_id: number;
    data_json: string;
  }[];
  const setOp = db.prepare("UPDATE edit_ops SET data_json = ? WHERE op_id = ?");
  for (const op of ops) setOp.run(toJson(remapDeep(JSON.parse(op.data_json), ids)), op.op_id);
  // The replaced entries' JSON blocks are no longer read.
  db.prepare(
    `DELETE FROM entry_blocks WHERE sid = ?
       AND block NOT IN (SELECT json_block FROM entries WHERE sid = ? AND json_block IS NOT NULL)`,
  ).run(sid, sid);
  return true;
}
