/**
 * Very long message texts sent to the page with a hole: the beginning and the end of the text,
 * and figures of the middle left out (its length, UTF-8 bytes, line breaks, bidi controls), so
 * that the LLM view shows its cut, sizes and line counts exactly as for the whole text without a
 * 20 MB answer to send, parse and hold. The whole text is asked for when the user wants it. Pure.
 */
import type { LlmMessage } from "../session/entries.ts";
import { countLines, utf8Length } from "./display-cut.ts";

/** Texts longer than this are sent with a hole (the view shows ~100 KB of a text until asked). */
export const HOLE_ABOVE_CHARS = 400_000;
/** What is kept before the hole: more than the view shows of a text, with room for a summary's framing. */
export const HOLE_HEAD_CHARS = 200_000;
/** What is kept after it: the end of a summary's template (`</summary>` and anything after) stays. */
export const HOLE_TAIL_CHARS = 20_000;

/** The middle of one text, left out. */
export interface TextHole {
  /** Where it was, in code units of the text as sent (head + tail). */
  at: number;
  /** Its length in code units, UTF-8 bytes, line breaks and bidi control characters. */
  chars: number;
  bytes: number;
  newlines: number;
  bidiControls: number;
  /** Its last character is a line break. */
  endsWithNewline: boolean;
}

/** A text of `messages[messageIndex]` sent with a hole: its string content (block null) or a block's. */
export interface MessageTextHole {
  messageIndex: number;
  block: number | null;
  hole: TextHole;
}

const BIDI_CONTROLS = /[\u202a-\u202e\u2066-\u2069]/g;
const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;

/** Figures of `text` as a hole at `at`. */
export function holeOf(text: string, at: number): TextHole {
  let newlines = 0;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) newlines += 1;
  return {
    at,
    chars: text.length,
    bytes: utf8Length(text),
    newlines,
    bidiControls: text.match(BIDI_CONTROLS)?.length ?? 0,
    endsWithNewline: text.endsWith("\n"),
  };
}

/** A boundary at or after `index` that does not split a surrogate pair. */
function safeBoundary(text: string, index: number): number {
  return index > 0 && index < text.length && isLowSurrogate(text.charCodeAt(index)) ? index + 1 : index;
}

/** `text` with its middle left out, or null when it is short enough to be sent whole. */
export function holedText(text: string): { text: string; hole: TextHole } | null {
  if (text.length <= HOLE_ABOVE_CHARS) return null;
  const start = safeBoundary(text, HOLE_HEAD_CHARS);
  const end = safeBoundary(text, text.length - HOLE_TAIL_CHARS);
  return { text: text.slice(0, start) + text.slice(end), hole: holeOf(text.slice(start, end), start) };
}

/**
 * `messages` with every long text (a user's or a tool result's text, an assistant's text or
 * thinking) holed, and where. Messages without a long text are the same objects.
 */
export function holeLongTexts(messages: readonly LlmMessage[]): {
  messages: LlmMessage[];
  holes: MessageTextHole[];
} {
  const holes: MessageTextHole[] = [];
  const out = messages.map((message, messageIndex): LlmMessage => {
    if (typeof message.content === "string") {
      const cut = holedText(message.content);
      if (!cut) return message;
      holes.push({ messageIndex, block: null, hole: cut.hole });
      return { ...message, content: cut.text } as LlmMessage;
    }
    // A hand-edited file may hold no array, or blocks that are no object: nothing to hole there.
    if (!Array.isArray(message.content)) return message;
    let changed = false;
    const content = message.content.map((block, index) => {
      if (block === null || typeof block !== "object") return block;
      const field = block.type === "text" ? "text" : block.type === "thinking" ? "thinking" : null;
      const value = field === null ? undefined : (block as unknown as Record<string, unknown>)[field];
      if (field === null || typeof value !== "string") return block;
      const cut = holedText(value);
      if (!cut) return block;
      changed = true;
      holes.push({ messageIndex, block: index, hole: cut.hole });
      return { ...block, [field]: cut.text };
    });
    return changed ? ({ ...message, content } as LlmMessage) : message;
  });
  return { messages: out, holes };
}

/** A hole as the view counts it: in a text whose bidi controls are spelled out (`\u202e`: 6 units). */
export interface ShownHole {
  /** Where it is in the text shown. */
  at: number;
  chars: number;
  bytes: number;
  newlines: number;
  endsWithNewline: boolean;
}

/** `hole` in a text shown with its bidi controls spelled out, `at` code units into that text. */
export function shownHole(hole: TextHole, at: number): ShownHole {
  // A control is 1 unit and 3 UTF-8 bytes; spelled out, 6 units and 6 bytes.
  return {
    at,
    chars: hole.chars + 5 * hole.bidiControls,
    bytes: hole.bytes + 3 * hole.bidiControls,
    newlines: hole.newlines,
    endsWithNewline: hole.endsWithNewline,
  };
}

/** Figures of the whole text that `text` is with `hole` filled: code units, UTF-8 bytes, lines (as countLines). */
export function wholeLength(text: string, hole: ShownHole | undefined): number {
  return text.length + (hole?.chars ?? 0);
}

export function wholeBytes(text: string, hole: ShownHole | undefined): number {
  return utf8Length(text) + (hole?.bytes ?? 0);
}

export function wholeLines(text: string, hole: ShownHole | undefined): number {
  if (!hole || hole.chars === 0) return countLines(text);
  let newlines = hole.newlines;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) newlines += 1;
  const endsWithNewline = hole.at >= text.length ? hole.endsWithNewline : text.endsWith("\n");
  return newlines + 1 - (endsWithNewline ? 1 : 0);
}
