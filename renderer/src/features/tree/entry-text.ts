/**
 * A message entry's whole text, for what needs more than the tree's snippet (editing it as a new
 * branch, the composer's "Answering:" line): read from an LLM view whose leaf is that entry —
 * the one on screen when it is, else one asked for (EditActions: context:get without the agent's
 * messages, passed in by the caller). Pure.
 */
import type { ContextView, TreeNodeDto } from "../../../../core/api/dto.ts";
import { flatten } from "../../../../core/session/describe.ts";
import { editableText } from "../../../../core/session/edit-text.ts";
import { shownSnippet } from "./snippet.ts";

/**
 * The entry's text from `context` when that view was built for it and holds it, else null;
 * `beginning`: its first characters are enough (a text without its middle will do).
 */
export function textFromContext(
  node: Pick<TreeNodeDto, "id">,
  context: ContextView | null,
  { beginning = false }: { beginning?: boolean } = {},
): string | null {
  if (context?.leafId !== node.id) return null;
  const index = context.messageEntryIds.lastIndexOf(node.id);
  if (index === -1) return null;
  // A text that came without its middle (textHoles) is not the whole text; its beginning is.
  if (!beginning && context.textHoles?.some((hole) => hole.messageIndex === index)) return null;
  // Its text blocks joined as the edit's save splits them again (an image-only message has none: "").
  return editableText((context.messages[index] as { content?: unknown } | undefined)?.content);
}

/** The entry's text: from `context` when it is the entry's view, else from its view asked for now. */
export async function entryFullText(
  node: Pick<TreeNodeDto, "id">,
  context: ContextView | null,
  fetchView: (leafId: string) => Promise<ContextView>,
): Promise<string | null> {
  const shown = textFromContext(node, context);
  if (shown !== null) return shown;
  return textFromContext(node, await fetchView(node.id));
}

/** The composer's "Answering:" line: the message's first 200 characters, else the node's snippet. */
export function answeringText(
  node: Pick<TreeNodeDto, "id" | "text" | "cut">,
  context: ContextView | null,
): string {
  const text = textFromContext(node, context, { beginning: true });
  return text === null ? shownSnippet(node) : flatten(text, 200);
}
