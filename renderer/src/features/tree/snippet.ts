/**
 * A tree node's snippet as shown: session:tree sends the text's beginning and a `cut` flag
 * (no "…" on the wire: one non-Latin-1 character makes V8 build the whole answer two-byte),
 * and every place that shows it adds the ellipsis here.
 */
import type { TreeNodeDto } from "../../../../core/api/dto.ts";

/** The node's snippet, at most `max` characters of it, with "…" when the entry's text goes on. */
export function shownSnippet(
  node: Pick<TreeNodeDto, "text" | "cut">,
  max = Number.POSITIVE_INFINITY,
): string {
  if (node.text.length > max) return `${node.text.slice(0, Math.max(0, max - 1))}…`;
  return node.cut ? `${node.text}…` : node.text;
}
