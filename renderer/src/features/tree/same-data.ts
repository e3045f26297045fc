/**
 * The memo comparison of the canvas's node components: they draw only from `data` (ids and
 * display fields; the rest is read from the store by id), so React Flow's other props — above
 * all positionAbsoluteX/Y, which change for every node below an entry a selection reveals — must
 * not re-render them. The node's wrapper still moves it.
 */
export function sameData(previous: { data: unknown }, next: { data: unknown }): boolean {
  return previous.data === next.data;
}
