/**
 * Text measured in terminal columns, and fitted to a width: cut with "…" or word-wrapped. Wide
 * characters (CJK, fullwidth forms, emoji) take 2 columns, combining marks and zero-width
 * characters none; text is cut and wrapped between grapheme clusters (an emoji sequence, a
 * letter and its marks stay whole). Pure; used by the CLI to fit its own prose to a terminal.
 */

/** Wide (W) and fullwidth (F) ranges of Unicode's East Asian Width, emoji aside. */
const WIDE: readonly (readonly [number, number])[] = [
  [0x1100, 0x115f], // Hangul Jamo initials
  [0x2e80, 0x303e], // CJK radicals, Kangxi, ideographic description, CJK symbols and punctuation
  [0x3041, 0x33ff], // kana, Bopomofo, Hangul compatibility Jamo, Kanbun, CJK strokes, enclosed
  [0x3400, 0x4dbf], // CJK extension A
  [0x4e00, 0x9fff], // CJK unified ideographs
  [0xa000, 0xa4cf], // Yi
  [0xa960, 0xa97f], // Hangul Jamo extended A
  [0xac00, 0xd7a3], // Hangul syllables
  [0xf900, 0xfaff], // CJK compatibility ideographs
  [0xfe10, 0xfe19], // vertical forms
  [0xfe30, 0xfe6f], // CJK compatibility forms, small form variants
  [0xff00, 0xff60], // fullwidth forms
  [0xffe0, 0xffe6], // fullwidth signs
  [0x16fe0, 0x18cff], // Tangut and ideographic symbols
  [0x1b000, 0x1b2ff], // kana supplement and extensions, Nushu
  [0x1f200, 0x1f2ff], // enclosed ideographic supplement
  [0x20000, 0x2fffd], // CJK extensions B–F
  [0x30000, 0x3fffd], // CJK extension G and later
];

const ZERO_WIDTH = /^(?:\p{Mn}|\p{Me}|\p{Variation_Selector}|[\u200b-\u200f\u2060-\u2064\ufeff])$/u;
const EMOJI = /\p{Emoji_Presentation}|\ufe0f|\p{Regional_Indicator}/u;
/**
 * Characters one column wide each that never join a grapheme cluster with their neighbours:
 * printable ASCII and Latin-1 to IPA (below the combining marks at U+0300), the dashes, quotes and
 * "…" of General Punctuation, "·", and box drawing ("├─", "│"). Text of these only (most of the
 * CLI's lines) is measured and cut by its length, without segmentation.
 */
const SIMPLE = /^[\x20-\x7e\u00a0-\u02ff\u2010-\u2027\u2030-\u205e\u2500-\u257f]*$/;
/** C0 controls (a tab aside), DEL and C1: shown on a terminal as a symbol (␛) or `\u009b`. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: measuring control characters is the point here.
const CONTROL = /^[\u0000-\u0008\u000a-\u001f\u007f]$/;
const C1_OR_BIDI = /^[\u0080-\u009f\u202a-\u202e\u2066-\u2069]$/;

const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });

function isWide(code: number): boolean {
  for (const [from, to] of WIDE) {
    if (code < from) return false;
    if (code <= to) return true;
  }
  return false;
}

/** Columns of one grapheme cluster as a terminal shows it (control characters as terminalText shows them). */
export function graphemeColumns(grapheme: string): number {
  const code = grapheme.codePointAt(0) ?? 0;
  if (grapheme.length === 1) {
    if (code >= 0x20 && code < 0x7f) return 1;
    if (code === 0x09) return 8; // a tab: at most 8
    if (CONTROL.test(grapheme)) return 1;
    if (C1_OR_BIDI.test(grapheme)) return 6;
  }
  if (EMOJI.test(grapheme)) return 2;
  if (ZERO_WIDTH.test(String.fromCodePoint(code))) return 0;
  return isWide(code) ? 2 : 1;
}

function graphemes(text: string): string[] {
  return Array.from(segmenter.segment(text), (part) => part.segment);
}

/** Columns `text` takes on one line of a terminal. */
export function textColumns(text: string): number {
  if (SIMPLE.test(text)) return text.length;
  let columns = 0;
  for (const grapheme of graphemes(text)) columns += graphemeColumns(grapheme);
  return columns;
}

/** `text` cut to at most `columns` columns, ending in "…" when cut (never half a wide character). */
export function cutToColumns(text: string, columns: number): string {
  if (textColumns(text) <= columns) return text;
  if (columns <= 0) return "";
  if (SIMPLE.test(text)) return `${text.slice(0, columns - 1).trimEnd()}…`;
  let used = 0;
  let kept = "";
  for (const grapheme of graphemes(text)) {
    const width = graphemeColumns(grapheme);
    if (used + width > columns - 1) break;
    kept += grapheme;
    used += width;
  }
  return `${kept.trimEnd()}…`;
}

/** Splits `word` into pieces of at most `first` columns, then `rest` columns (a word longer than a line). */
function breakWord(word: string, first: number, rest: number): string[] {
  const pieces: string[] = [];
  let piece = "";
  let used = 0;
  let room = Math.max(1, first);
  for (const grapheme of graphemes(word)) {
    const width = graphemeColumns(grapheme);
    if (used + width > room && piece !== "") {
      pieces.push(piece);
      piece = "";
      used = 0;
      room = Math.max(1, rest);
    }
    piece += grapheme;
    used += width;
  }
  if (piece !== "") pieces.push(piece);
  return pieces;
}

/**
 * `text` word-wrapped to lines of at most `columns` columns: each of its lines is broken at
 * spaces, a word longer than a line is broken where the line ends, and every line after the
 * first of a paragraph starts with `hang` (cut to half the width at most, so text still fits).
 * A line that fits is returned as it is.
 */
export function wrapToColumns(text: string, columns: number, hang = ""): string[] {
  const width = Math.max(1, columns);
  const indent = textColumns(hang) > width / 2 ? " ".repeat(Math.floor(width / 2)) : hang;
  const indentColumns = textColumns(indent);
  const lines: string[] = [];
  for (const paragraph of text.split("\n")) {
    if (textColumns(paragraph) <= width) {
      lines.push(paragraph);
      continue;
    }
    // Leading spaces (an indented line) stay with the first word.
    const lead = /^ */.exec(paragraph)?.[0] ?? "";
    let line = lead;
    let used = lead.length;
    let fresh = true;
    for (const word of paragraph.slice(lead.length).split(/ +/)) {
      if (word === "") continue;
      const wordColumns = textColumns(word);
      const gap = fresh ? 0 : 1;
      if (used + gap + wordColumns <= width) {
        line += `${fresh ? "" : " "}${word}`;
        used += gap + wordColumns;
        fresh = false;
        continue;
      }
      // Too long for a line of its own: broken, its first piece on this line if there is room.
      const roomHere = width - used - gap;
      if (wordColumns > width - indentColumns) {
        const here = roomHere >= Math.min(8, wordColumns) ? roomHere : 0;
        const pieces = breakWord(word, here > 0 ? here : width - indentColumns, width - indentColumns);
        if (here > 0) line += `${fresh ? "" : " "}${pieces.shift() ?? ""}`;
        else if (!fresh || line.trim() !== "") lines.push(line);
        else line = "";
        if (here > 0) lines.push(line);
        const last = pieces.pop() ?? "";
        for (const piece of pieces) lines.push(`${indent}${piece}`);
        line = `${indent}${last}`;
        used = indentColumns + textColumns(last);
        fresh = false;
        continue;
      }
      if (!fresh || line.trim() !== "") lines.push(line);
      line = `${indent}${word}`;
      used = indentColumns + wordColumns;
      fresh = false;
    }
    lines.push(line);
  }
  return lines;
}

/** wrapToColumns as one text; `columns` undefined (not a terminal): `text` as it is. */
export function fitText(text: string, columns: number | undefined, hang = ""): string {
  return columns === undefined ? text : wrapToColumns(text, columns, hang).join("\n");
}

/**
 * Fields (an id, a date, counts, a path) joined by `separator` on as few lines of `columns` as
 * they fit: one that does not fit goes to the next line, after `hang`; one wider than a line by
 * itself is word-wrapped there. `columns` undefined: one line.
 */
export function fitFields(
  fields: readonly string[],
  columns: number | undefined,
  separator = "  ",
  hang = "    ",
): string {
  if (columns === undefined) return fields.join(separator);
  const lines: string[] = [];
  let line = "";
  for (const field of fields) {
    const joined = line === "" ? field : `${line}${separator}${field}`;
    if (line === "" || textColumns(joined) <= columns) {
      line = joined;
      continue;
    }
    lines.push(line);
    line = `${hang}${field}`;
  }
  lines.push(line);
  return lines.flatMap((one) => wrapToColumns(one, columns, hang)).join("\n");
}
