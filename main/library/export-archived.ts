/**
 * What an export without archived branches leaves out, such that every written parentId still
 * resolves and no label of a kept entry is lost: archived subtrees and the labels of their entries
 * go, except a label entry that kept entries hang from (it stays) and a label Canopy set on a
 * kept entry below an archived one (written below the nearest kept entry above it).
 */
import type { EntryRow } from "../store/repos/entries.ts";

export interface ArchivedCut {
  /** Ids of the entries left out. */
  omit: Set<string>;
  /** Label entries written with another parent: id → new parentId. */
  moved: Map<string, string | null>;
}

type CutRow = Pick<EntryRow, "id" | "parent_id" | "type" | "origin" | "json">;

function labelTarget(row: CutRow): string | undefined {
  if (row.type !== "label") return undefined;
  const target: unknown = (JSON.parse(row.json) as { targetId?: unknown }).targetId;
  return typeof target === "string" ? target : undefined;
}

export function archivedCut(rows: readonly CutRow[], archived: ReadonlySet<string>): ArchivedCut {
  const omit = new Set<string>();
  const moved = new Map<string, string | null>();
  if (archived.size === 0) return { omit, moved };
  const parentOf = new Map<string, string | null>();
  for (const row of rows) if (row.id !== null) parentOf.set(row.id, row.parent_id);
  const keptAbove = (id: string): string | null => {
    let parent = parentOf.get(id) ?? null;
    const seen = new Set<string>();
    while (parent !== null && archived.has(parent) && !seen.has(parent)) {
      seen.add(parent);
      parent = parentOf.get(parent) ?? null;
    }
    return parent !== null && archived.has(parent) ? null : parent;
  };
  for (const row of rows) {
    if (row.id === null) continue;
    const target = labelTarget(row);
    if (archived.has(row.id)) {
      // Canopy hangs its labels below the file's last entry (D15), whatever branch that is in:
      // such a label belongs to its target, not to the archived branch it was placed in.
      const placed = row.origin === "canopy" && row.parent_id !== null && archived.has(row.parent_id);
      if (placed && target !== undefined && !archived.has(target)) moved.set(row.id, keptAbove(row.id));
      else omit.add(row.id);
    } else if (target !== undefined && archived.has(target)) omit.add(row.id);
  }
  // A label entry of an archived entry that written entries hang from stays, with the label on an
  // entry the file no longer has (the agents keep such a label and never show it).
  for (const row of rows) {
    if (row.id === null || omit.has(row.id)) continue;
    let parent = moved.has(row.id) ? (moved.get(row.id) ?? null) : row.parent_id;
    while (parent !== null && omit.has(parent) && !archived.has(parent)) {
      omit.delete(parent);
      parent = parentOf.get(parent) ?? null;
    }
  }
  return { omit, moved };
}
