/**
 * Long texts cut for display: a 20 MB summary or tool output is shown by its beginning (whole
 * lines, never half a surrogate pair) with a note of what is not shown, so the page lays out and
 * parses as markdown at most that much. For display only: what is stored, exported or sent to the
 * model is never cut. Pure; sizes are UTF-16 code units (`string.length`) unless named bytes.
 */

/** How much of one text the views show before the user asks for all of it (about 100 KB). */
export const DISPLAY_CUT_CHARS = 100_000;

export interface DisplayCut {
  /** The beginning that is shown: `text.startsWith(shown)`. */
  shown: string;
  /** Code units of the text after `shown` (0: the whole text is shown). */
  hiddenChars: number;
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

/**
 * The beginning of `text` in at most `maxChars` code units. It ends after the last line break
 * that fits, unless that would show less than half the limit (one very long line, such as
 * minified JSON): then it ends at the limit, stepping back one unit so that a character outside
 * the Basic Multilingual Plane (an emoji: two code units) is never split.
 */
export function cutForDisplay(text: string, maxChars: number): DisplayCut {
  if (text.length <= maxChars) return { shown: text, hiddenChars: 0 };
  const limit = Math.max(1, Math.floor(maxChars));
  const lineEnd = text.lastIndexOf("\n", limit - 1) + 1;
  let end = lineEnd >= limit / 2 ? lineEnd : limit;
  if (end === limit && isHighSurrogate(text.charCodeAt(end - 1))) end -= 1;
  // A limit of one unit on an emoji: the pair (one unit over the limit) rather than nothing.
  if (end === 0) end = 2;
  return { shown: text.slice(0, end), hiddenChars: text.length - end };
}

/** The whole text in consecutive pieces of at most `maxChars` (cut as above); they join to `text`. */
export function splitForDisplay(text: string, maxChars: number): string[] {
  const pieces: string[] = [];
  let rest = text;
  while (rest.length > maxChars) {
    const { shown } = cutForDisplay(rest, maxChars);
    pieces.push(shown);
    rest = rest.slice(shown.length);
  }
  if (rest.length > 0 || pieces.length === 0) pieces.push(rest);
  return pieces;
}

/** Bytes of `text` in UTF-8 (what "a 20 MB summary" means), without encoding it. */
export function utf8Length(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) continue;
    if (code < 0x800) {
      bytes += 1;
      continue;
    }
    // +2 in all other cases: a BMP character or a lone surrogate (written as U+FFFD) is 3 bytes
    // for 1 unit, a surrogate pair 4 bytes for 2 units (its low half is then skipped).
    bytes += 2;
    if (isHighSurrogate(code) && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) i += 1;
  }
  return bytes;
}

/** Lines of `text` (a final line break does not start another line). */
export function countLines(text: string): number {
  if (text.length === 0) return 0;
  let lines = 1;
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) lines += 1;
  return text.endsWith("\n") ? lines - 1 : lines;
}
