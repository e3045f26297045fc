/**
 * How one provider message is shown in the LLM view: split into display parts (markdown text,
 * a summary framed by Canopy's template, thinking, tool calls, tool output, image placeholders,
 * the error of a failed reply), a kind label from the source entry, and whether the body is long
 * enough to start collapsed. Pure, so it is unit-tested in Node.
 */
import type { LlmMessage } from "../../../../core/session/entries.ts";
import { failedStop } from "../../../../core/session/message-text.ts";
import { describeOtherBlock } from "../../../../core/session/other-blocks.ts";
import { countLines, cutForDisplay } from "../../../../core/text/display-cut.ts";
import { toJson } from "../../../../core/text/json-deep.ts";
import {
  type MessageTextHole,
  type ShownHole,
  shownHole,
  type TextHole,
  wholeLength,
  wholeLines,
} from "../../../../core/text/text-hole.ts";
import { showBidiControls } from "../common/bidi-controls.ts";

/**
 * `hole`: the text came without its middle (a very long one, core/text/text-hole.ts); in a
 * summary, the hole is in `summary`. `copy`: the text as the model receives it, when the shown
 * `text` (a summary's `summary`) has bidi controls spelled out — what "Copy full text" copies.
 */
export type MessagePart =
  | { kind: "markdown"; text: string; hole?: ShownHole; copy?: string }
  /** A user message made from a compaction or branch summary: framing, the summary, anything after. */
  | { kind: "summary"; framing: string; summary: string; after: string; hole?: ShownHole; copy?: string }
  | { kind: "thinking"; text: string; hole?: ShownHole; copy?: string }
  | { kind: "toolCall"; name: string; id: string; argumentsJson: string }
  /** Tool output and other text that is not prose: shown preformatted, never as markdown. */
  | { kind: "output"; text: string; hole?: ShownHole; copy?: string }
  /** `blob`: the data is a ref to the agent's blob store; `found`: the store has it (`bytes`). */
  | { kind: "image"; mimeType: string; bytes: number; blob?: { ref: string; found: boolean } }
  | { kind: "error"; text: string; hole?: undefined; copy?: string }
  /** A block of another kind (redacted thinking, a fallback marker): what it is, what it holds. */
  | { kind: "other"; label: string; text: string; hole?: undefined; copy?: string };

const SUMMARY_OPEN = "<summary>\n";
const SUMMARY_CLOSE = "\n</summary>";

/** Splits text that wraps a `<summary>` block (SPEC §3.5) into framing, summary and the rest. */
export function splitSummary(text: string): { framing: string; summary: string; after: string } | null {
  const bounds = summaryBounds(text);
  if (!bounds) return null;
  return {
    framing: text.slice(0, bounds.start - SUMMARY_OPEN.length).trimEnd(),
    summary: text.slice(bounds.start, bounds.end),
    after: text.slice(bounds.end + SUMMARY_CLOSE.length).trimStart(),
  };
}

/** Where the summary of a `<summary>` block starts and ends in `text`, or null. */
function summaryBounds(text: string): { start: number; end: number } | null {
  const open = text.indexOf(SUMMARY_OPEN);
  if (open < 0 || (open > 0 && text[open - 1] !== "\n")) return null;
  const end = text.lastIndexOf(SUMMARY_CLOSE);
  if (end < open + SUMMARY_OPEN.length - 1) return null;
  return { start: open + SUMMARY_OPEN.length, end };
}

/** Bytes behind a base64 string (what an image placeholder reports); 0 for a blob ref. */
export function base64Bytes(data: unknown): number {
  if (typeof data !== "string" || data.startsWith("blob:")) return 0;
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

function prettyJson(value: unknown): string {
  try {
    // toJson: arguments nested thousands of levels deep are shown too, not "[object Object]".
    return toJson(value ?? {}, 2) ?? "{}";
  } catch {
    // Arguments that cannot be serialized (cycles cannot come from JSON, but be safe): say so.
    return String(value);
  }
}

/** `hole` (at an index of `text`) where it is in `text.slice(from)` once shown. */
function holeFrom(text: string, from: number, hole: TextHole): ShownHole {
  return shownHole(hole, showBidiControls(text.slice(from, hole.at)).length);
}

function textPart(text: string, asSummary: boolean, hole: TextHole | undefined): MessagePart {
  if (asSummary) {
    const split = splitSummary(text);
    const bounds = summaryBounds(text);
    // A hole outside the summary (a text that only looks like one): shown as the text it is.
    if (split && bounds && !hole) return { kind: "summary", ...split };
    if (split && bounds && hole && hole.at >= bounds.start && hole.at <= bounds.end)
      return { kind: "summary", ...split, hole: holeFrom(text, bounds.start, hole) };
  }
  return hole ? { kind: "markdown", text, hole: holeFrom(text, 0, hole) } : { kind: "markdown", text };
}

/** `part` with the hole of its text, when it has one. */
function withHole<P extends MessagePart>(part: P, text: string, hole: TextHole | undefined): P {
  return hole ? { ...part, hole: holeFrom(text, 0, hole) } : part;
}

/** The part with its bidi controls spelled out (what the model receives, made visible). */
function shown(part: MessagePart): MessagePart {
  switch (part.kind) {
    case "summary": {
      const summary = showBidiControls(part.summary);
      return {
        ...part,
        framing: showBidiControls(part.framing),
        summary,
        after: showBidiControls(part.after),
        ...(summary === part.summary ? {} : { copy: part.summary }),
      };
    }
    case "toolCall":
      return {
        kind: "toolCall",
        name: showBidiControls(part.name),
        id: showBidiControls(part.id),
        argumentsJson: showBidiControls(part.argumentsJson),
      };
    case "other":
      return { kind: "other", label: showBidiControls(part.label), text: showBidiControls(part.text) };
    case "image":
      return {
        ...part,
        mimeType: showBidiControls(part.mimeType),
        ...(part.blob ? { blob: { ...part.blob, ref: showBidiControls(part.blob.ref) } } : {}),
      };
    default: {
      const text = showBidiControls(part.text);
      return text === part.text ? part : { ...part, text, copy: part.text };
    }
  }
}

/** Image blob ref → its size in the agent's blob store, null when the store has none (ContextView). */
export type BlobSizes = Readonly<Record<string, number | null>>;

/**
 * The display parts of `message`; `holes`: those of its texts that came without their middle;
 * `blobs`: the sizes of its images kept in the agent's blob store; `summary`: the message is a
 * compaction or branch summary, drawn with its framing and `<summary>` block apart (any other
 * text holding a `<summary>` line — a bash run printing HTML — is shown whole, as sent).
 */
export function messageParts(
  message: LlmMessage,
  holes?: readonly MessageTextHole[],
  blobs?: BlobSizes,
  summary = false,
): MessagePart[] {
  const byBlock = new Map<number | null, TextHole>();
  for (const { block, hole } of holes ?? []) byBlock.set(block, hole);
  return rawParts(message, byBlock, blobs ?? {}, summary).map(shown);
}

/** A block of none of the kinds below, by what it is. */
function otherPart(block: unknown): MessagePart {
  return { kind: "other", ...describeOtherBlock(block) };
}

/** An image block's part; any block that is no text and no image is shown by what it is. */
function imagePart(block: unknown, blobs: BlobSizes): MessagePart {
  const b = block as StoredBlock | null;
  if (b === null || typeof b !== "object" || b.type !== "image") return otherPart(block);
  const image = {
    data: b.data,
    mimeType: typeof b.mimeType === "string" ? b.mimeType : "unknown type",
  };
  if (typeof image.data !== "string" || !image.data.startsWith("blob:"))
    return { kind: "image", mimeType: image.mimeType, bytes: base64Bytes(image.data) };
  const size = Object.hasOwn(blobs, image.data) ? blobs[image.data] : null;
  const found = typeof size === "number";
  return { kind: "image", mimeType: image.mimeType, bytes: found ? size : 0, blob: { ref: image.data, found } };
}

type StoredBlock = { type?: unknown; [key: string]: unknown };

/**
 * The blocks of a message's content as stored, each with its text's hole. A hand-edited file may
 * hold a string where blocks belong (one text block, its hole keyed null), no array (no block), or
 * blocks that are no object (shown by what they are).
 */
function storedBlocks(
  content: unknown,
  holes: ReadonlyMap<number | null, TextHole>,
): { block: unknown; hole: TextHole | undefined }[] {
  if (typeof content === "string") return [{ block: { type: "text", text: content }, hole: holes.get(null) }];
  if (!Array.isArray(content)) return [];
  return content.map((block: unknown, index) => ({ block, hole: holes.get(index) }));
}

/** The string under `field` when `block` is of `type` and holds one there (else null). */
function textField(block: unknown, type: string, field: string): string | null {
  const b = block as StoredBlock | null;
  if (b === null || typeof b !== "object" || b.type !== type) return null;
  const value = b[field];
  return typeof value === "string" ? value : null;
}

function rawParts(
  message: LlmMessage,
  holes: ReadonlyMap<number | null, TextHole>,
  blobs: BlobSizes,
  summary: boolean,
): MessagePart[] {
  const blocks = storedBlocks(message.content, holes);
  if (message.role === "user") {
    return blocks.map(({ block, hole }) => {
      const text = textField(block, "text", "text");
      return text !== null ? textPart(text, summary, hole) : imagePart(block, blobs);
    });
  }
  if (message.role === "assistant") {
    const parts: MessagePart[] = blocks.map(({ block, hole }): MessagePart => {
      const text = textField(block, "text", "text");
      if (text !== null) return withHole({ kind: "markdown", text }, text, hole);
      const thinking = textField(block, "thinking", "thinking");
      if (thinking !== null) return withHole({ kind: "thinking", text: thinking }, thinking, hole);
      const call = block as StoredBlock | null;
      if (call === null || typeof call !== "object" || call.type !== "toolCall") return otherPart(block);
      // A hand-edited call may lack its name or id: shown empty rather than failing the view.
      const name = typeof call.name === "string" ? call.name : "";
      const id = typeof call.id === "string" ? call.id : "";
      return { kind: "toolCall", name, id, argumentsJson: prettyJson(call.arguments) };
    });
    const failed = failedStop(message);
    if (failed !== null) {
      const why =
        typeof message.errorMessage === "string" && message.errorMessage ? `: ${message.errorMessage}` : "";
      parts.push({ kind: "error", text: `Reply ended with ${failed}${why}` });
    }
    return parts;
  }
  return blocks.map(({ block, hole }) => {
    const text = textField(block, "text", "text");
    return text !== null ? withHole({ kind: "output", text }, text, hole) : imagePart(block, blobs);
  });
}

/** Characters a part shows, for the collapse decision. */
function partChars(part: MessagePart): number {
  switch (part.kind) {
    case "summary":
      return part.framing.length + wholeLength(part.summary, part.hole) + part.after.length;
    case "toolCall":
      return part.name.length + part.argumentsJson.length;
    case "image":
      return 40;
    default:
      return wholeLength(part.text, part.hole);
  }
}

// Counted without splitting: a 20 MB part must not become an array of lines to be measured.
function partLines(part: MessagePart): number {
  switch (part.kind) {
    case "summary":
      return countLines(part.framing) + wholeLines(part.summary, part.hole) + countLines(part.after) + 2;
    case "toolCall":
      return countLines(part.argumentsJson) + 1;
    case "image":
      return 1;
    default:
      return wholeLines(part.text, part.hole);
  }
}

export const COLLAPSE_CHARS = 1200;
export const COLLAPSE_LINES = 18;

/** Long bodies start collapsed. */
export function isLong(parts: readonly MessagePart[]): boolean {
  let chars = 0;
  let lines = 0;
  for (const part of parts) {
    chars += partChars(part);
    lines += partLines(part);
  }
  return chars > COLLAPSE_CHARS || lines > COLLAPSE_LINES;
}

/** `part` cut to its first `maxChars` (line boundary, see cutForDisplay); null when it fits. */
function cutPart(part: MessagePart, maxChars: number): { part: MessagePart; hiddenChars: number } | null {
  switch (part.kind) {
    case "image":
      return null;
    case "summary": {
      // The framing stays (a few lines of Canopy's template); the summary itself is what grows.
      const room = maxChars - part.framing.length;
      const cut =
        room > 0 ? cutForDisplay(part.summary, room) : { shown: "", hiddenChars: part.summary.length };
      // A hole lies past any collapsed body's budget (text-hole.ts keeps far more before it).
      const hiddenChars = cut.hiddenChars + (part.hole?.chars ?? 0) + part.after.length;
      // A cut part is never copied (only a text over the display cut offers Copy).
      const { hole: _, copy: _copy, ...whole } = part;
      return hiddenChars === 0 ? null : { part: { ...whole, summary: cut.shown, after: "" }, hiddenChars };
    }
    case "toolCall": {
      const cut = cutForDisplay(part.argumentsJson, maxChars);
      return cut.hiddenChars === 0
        ? null
        : { part: { ...part, argumentsJson: cut.shown }, hiddenChars: cut.hiddenChars };
    }
    default: {
      const cut = cutForDisplay(part.text, maxChars);
      const { hole, copy: _copy, ...whole } = part;
      const hiddenChars = cut.hiddenChars + (hole?.chars ?? 0);
      return hiddenChars === 0 ? null : { part: { ...whole, text: cut.shown }, hiddenChars };
    }
  }
}

/**
 * A collapsed body only needs its beginning: parts are cut (on a line boundary) once `maxChars`
 * are shown, so a 500 kB tool output or a 20 MB summary is not laid out, nor parsed as markdown,
 * until the user expands it.
 */
export function limitParts(
  parts: readonly MessagePart[],
  maxChars: number,
): { parts: MessagePart[]; hiddenChars: number } {
  const out: MessagePart[] = [];
  let budget = maxChars;
  let hiddenChars = 0;
  for (const part of parts) {
    const chars = partChars(part);
    if (budget <= 0) {
      hiddenChars += chars;
      continue;
    }
    const cut = chars <= budget ? null : cutPart(part, budget);
    out.push(cut?.part ?? part);
    hiddenChars += cut?.hiddenChars ?? 0;
    budget = cut ? 0 : budget - chars;
  }
  return { parts: out, hiddenChars };
}

/**
 * What kind of message this is, from the entry that produced it (tree node type and kind) and
 * the message itself: a summary, a bash run, a custom message, a file mention, or the role.
 */
export function messageKindLabel(
  message: LlmMessage,
  entryType: string | undefined,
  entryKind: string | undefined,
): string {
  if (entryType === "compaction") return "compaction summary";
  if (entryType === "branch_summary") return "branch summary";
  if (entryType === "custom_message") return "custom message";
  if (entryKind === "bashExecution") return "bash";
  if (entryKind === "pythonExecution") return "python";
  if (entryKind === "custom" || entryKind === "hookMessage") return "custom message";
  if (entryKind === "fileMention") return "file mention";
  if (entryKind === "compactionSummary") return "compaction summary";
  if (entryKind === "branchSummary") return "branch summary";
  if (message.role === "toolResult") return "tool result";
  return message.role;
}

export function formatTokens(tokens: number): string {
  if (tokens >= 10_000) return `${(tokens / 1000).toFixed(tokens >= 100_000 ? 0 : 1)}k`;
  return tokens.toLocaleString("en-US");
}
