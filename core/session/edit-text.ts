/**
 * The text "Edit as new branch" shows for a message (its text blocks joined by a newline) and
 * the content of the edited copy: the blocks the edit did not touch are kept as they were, and
 * other blocks (images) stay where they were between the texts. Pure.
 */

/** What joins a message's text blocks in the editor. */
export const EDIT_TEXT_SEPARATOR = "\n";

type Loose = Record<string, unknown>;

function isTextBlock(block: unknown): block is Loose & { text: string } {
  return (block as Loose | null)?.type === "text" && typeof (block as Loose).text === "string";
}

/** The text the editor opens with: a string content, or the text blocks joined. */
export function editableText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter(isTextBlock)
    .map((block) => block.text)
    .join(EDIT_TEXT_SEPARATOR);
}

/** Line breaks as a text box gives them back (a browser's textarea turns CRLF and CR into LF). */
function boxNewlines(text: string): string {
  return text.replace(/\r\n?/g, "\n");
}

/** Whether `text` is the message's text as the editor showed it (line breaks aside). */
export function isUneditedText(content: unknown, text: string): boolean {
  return boxNewlines(editableText(content)) === boxNewlines(text);
}

/**
 * The content with `text` in place of its text: unchanged when the text is (line breaks a text
 * box normalized aside); else only the text blocks the changed stretch spans (found by the common
 * beginning and end of the old and new text) become one block holding their new text, in the
 * first one's place.
 */
export function contentWithText(content: unknown, text: string): unknown {
  if (isUneditedText(content, text)) return content;
  if (!Array.isArray(content)) return text;
  const texts: number[] = [];
  for (const [index, block] of content.entries()) if (isTextBlock(block)) texts.push(index);
  if (texts.length === 0) return [{ type: "text", text }, ...content];
  // Where each text block starts and ends in the joined text (as the editor showed it).
  const shown = texts.map((index) => boxNewlines((content[index] as { text: string }).text));
  const old = shown.join(EDIT_TEXT_SEPARATOR);
  const spans: { start: number; end: number }[] = [];
  let at = 0;
  for (const part of shown) {
    spans.push({ start: at, end: at + part.length });
    at += part.length + EDIT_TEXT_SEPARATOR.length;
  }
  let prefix = 0;
  const most = Math.min(old.length, text.length);
  while (prefix < most && old[prefix] === text[prefix]) prefix++;
  let suffix = 0;
  while (suffix < most - prefix && old[old.length - 1 - suffix] === text[text.length - 1 - suffix]) suffix++;
  const changedEnd = old.length - suffix;
  // The first block ending at or after the change, the last starting at or before its end.
  let first = spans.findIndex((span) => span.end >= prefix);
  if (first === -1) first = spans.length - 1;
  let last = first;
  while (last + 1 < spans.length && (spans[last + 1] as { start: number }).start <= changedEnd) last++;
  const from = (spans[first] as { start: number }).start;
  const to = text.length - (old.length - (spans[last] as { end: number }).end);
  const merged = text.slice(from, to);
  const dropped = new Set(texts.slice(first + 1, last + 1));
  const out: unknown[] = [];
  for (const [index, block] of content.entries()) {
    if (dropped.has(index)) continue;
    out.push(index === texts[first] ? { ...(block as Loose), text: merged } : block);
  }
  return out;
}
