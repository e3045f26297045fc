/**
 * Where a drag-to-branch drop moves the view leaf (pure). Dragging the leaf (or any node) onto an
 * entry targets that entry; dragging a node onto the leaf targets the dragged node. Dropping onto
 * the view leaf itself changes nothing ("Already at this point", SPEC §10.4).
 */
export function dropTarget(
  sourceId: string,
  overId: string | null,
  viewLeafId: string | null,
): string | null {
  if (overId === null) return null;
  const target = overId === viewLeafId ? sourceId : overId;
  return target === viewLeafId ? null : target;
}
