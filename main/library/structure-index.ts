/**
 * A session's tree index built from the structural columns (id, parent, type), with only the
 * label entries read from JSON: what edits need to check an entry, walk a subtree or read labels,
 * without parsing a 100k-entry session. Other entries are stubs ({ type, id, parentId }).
 */
import type { SessionEntry } from "../../core/session/entries.ts";
import { applyLabelEntry, buildTreeIndex, type TreeIndex } from "../../core/session/tree.ts";
import type { Database } from "../store/open.ts";
import { entryJsonByPk, labelEntryPks, listEntryShapes } from "../store/repos/entries.ts";

/** What the index reads of an entry row: pk, seq, id, parent id and type (EntryShape, EntryTreeRow). */
export type EntryLinkColumns = readonly [
  pk: number,
  seq: number,
  id: string | null,
  parentId: string | null,
  type: string,
  ...rest: unknown[],
];

/** Repairs, labels and links as the full index has them; entries are stubs except labels. */
export function structuralIndex(
  db: Database,
  sid: number,
  shapes: readonly EntryLinkColumns[] = listEntryShapes(db, sid),
): TreeIndex {
  const labels = entryJsonByPk(
    db,
    shapes.filter((shape) => shape[4] === "label").map((shape) => shape[0]),
  );
  let next = 0;
  const entries = shapes.map(([, , id, parentId, type]): SessionEntry => {
    if (type === "label") return JSON.parse(labels[next++] as string) as SessionEntry;
    const stub: Record<string, unknown> = { type, parentId, timestamp: "" };
    if (id !== null) stub.id = id;
    return stub as SessionEntry;
  });
  return buildTreeIndex(entries);
}

/** An entry's label as the tree index has it (label entries applied in line order), or "". */
export function currentLabel(db: Database, sid: number, targetId: string): string {
  const labels = new Map<string, string>();
  for (const json of entryJsonByPk(db, labelEntryPks(db, sid))) {
    applyLabelEntry(labels, JSON.parse(json) as SessionEntry);
  }
  return labels.get(targetId) ?? "";
}
