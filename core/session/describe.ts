/**
 * One-line descriptions of entries (kind + a text snippet), shared by the CLI's tree text and
 * the renderer's lists.
 */
import type { AgentMessage, SessionEntry } from "./entries.ts";
import { joinNames } from "./message-text.ts";

/**
 * An entry's text is built as pieces whose concatenation is the text: a snippet then reads only
 * the first few hundred chars, never joining (or copying) a 100 KB tool output whole.
 */
type Pieces = string[];

function contentPieces(content: unknown, out: Pieces): void {
  if (typeof content === "string") {
    out.push(content);
    return;
  }
  if (!Array.isArray(content)) return;
  let first = true;
  for (const block of content as unknown[]) {
    // A hand-edited or hostile file: a block may be null, a number, a string.
    if (block === null || typeof block !== "object") continue;
    const b = block as { type?: unknown; text?: unknown; thinking?: unknown; name?: unknown };
    let text = "";
    if (b.type === "text" && typeof b.text === "string") text = b.text;
    else if (b.type === "toolCall" && typeof b.name === "string") text = `${b.name}(…)`;
    else if (b.type === "image") text = "[image]";
    if (text === "") continue;
    if (!first) out.push(" ");
    out.push(text);
    first = false;
  }
}

/** `value` when it is a string, else "" (a field missing or of another type in a hostile file). */
const str = (value: unknown): string => (typeof value === "string" ? value : "");

function messagePieces(message: AgentMessage, out: Pieces): void {
  switch (message.role) {
    case "user":
    case "assistant":
    case "custom":
    case "hookMessage":
      contentPieces(message.content, out);
      return;
    case "toolResult":
      if (str(message.toolName) !== "") out.push(`${message.toolName}: `);
      contentPieces(message.content, out);
      return;
    case "bashExecution":
      out.push(`$ ${str(message.command)}`);
      return;
    case "pythonExecution":
      out.push(str(message.code));
      return;
    case "fileMention": {
      const files: unknown[] = Array.isArray(message.files) ? message.files : [];
      out.push(files.map((file) => str((file as { path?: unknown } | null)?.path)).join(", "));
      return;
    }
    case "branchSummary":
    case "compactionSummary":
      out.push(str(message.summary));
      return;
    default:
      return;
  }
}

/**
 * Whether a UTF-16 code unit is white space as /\s/ and String.prototype.trim see it
 * (WhiteSpace and LineTerminator; checked against the RegExp for every code unit by a test).
 */
export function isFoldedSpace(code: number): boolean {
  if (code > 32 && code < 160) return false;
  return (
    code === 32 ||
    (code >= 9 && code <= 13) ||
    code === 160 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

/** A new string of these UTF-16 code units (not a slice that keeps a long text alive). */
function fromCodes(codes: readonly number[]): string {
  let text = "";
  for (let at = 0; at < codes.length; at += 4096) {
    text += String.fromCharCode.apply(null, codes.slice(at, at + 4096));
  }
  return text;
}

/**
 * The first `width` characters of the pieces' folded text (their concatenation with every
 * whitespace run made one space, then trimmed: `.replace(/\s+/g, " ").trim()`), and whether it
 * goes on past them. Reads the pieces only as far as the snippet needs, a character at a time.
 */
function foldPieces(pieces: readonly string[], width: number): { text: string; cut: boolean } {
  const codes: number[] = [];
  // White space met after some text: a space goes before the next character.
  let space = false;
  for (const piece of pieces) {
    const length = piece.length;
    for (let at = 0; at < length; at++) {
      const code = piece.charCodeAt(at);
      if (isFoldedSpace(code)) {
        if (codes.length > 0) space = true;
        continue;
      }
      if (space) {
        if (codes.length >= width) return { text: fromCodes(codes), cut: true };
        codes.push(32);
        space = false;
      }
      if (codes.length >= width) return { text: fromCodes(codes), cut: true };
      codes.push(code);
    }
  }
  return { text: fromCodes(codes), cut: false };
}

/** flatten() of the pieces' concatenation. */
function flattenPieces(pieces: readonly string[], width: number): string {
  const folded = foldPieces(pieces, width);
  return folded.cut ? `${folded.text.slice(0, Math.max(0, width - 1))}…` : folded.text;
}

/**
 * The text on one line (whitespace runs folded to a space), cut to `width` with "…". Only the
 * start is shown, so only a growing prefix is folded, never a whole 100 KB tool output.
 */
export function flatten(text: string, width: number): string {
  return flattenPieces([text], width);
}

/** `text` on one line: each line break, with the white space around it, made one space. */
export function oneLine(text: string): string {
  return text.replace(/\s*[\r\n\u2028\u2029]+\s*/g, " ");
}

/** "1 entry", "2 entries": a count with its noun in the right number (`plural` defaults to noun + "s"). */
export function counted(count: number, noun: string, plural = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : plural}`;
}

/** The entry's kind as shown to users: the message role for messages, else the entry type. */
export function entryKind(entry: SessionEntry): string {
  if (entry.type === "message") {
    const role = (entry.message as { role?: unknown } | undefined)?.role;
    return typeof role === "string" ? role : "message";
  }
  return entry.type;
}

/** The pieces of entryText(entry), in order. */
function entryPieces(entry: SessionEntry): Pieces {
  const e = entry as SessionEntry & Record<string, unknown>;
  const out: Pieces = [];
  switch (entry.type) {
    case "message":
      if (entry.message && typeof entry.message === "object")
        messagePieces(entry.message as AgentMessage, out);
      break;
    case "compaction":
    case "branch_summary":
      if (typeof e.summary === "string") out.push(e.summary);
      break;
    case "custom_message":
      out.push(`${String(e.customType)}: `);
      contentPieces(e.content, out);
      break;
    case "custom":
      out.push(String(e.customType ?? ""));
      break;
    case "model_change":
      out.push(typeof e.model === "string" ? e.model : joinNames([e.provider, e.modelId]));
      break;
    case "thinking_level_change":
      out.push(String(e.thinkingLevel ?? ""));
      break;
    case "label":
      out.push(
        `${String(e.targetId ?? "?")} = ${typeof e.label === "string" && e.label ? e.label : "(cleared)"}`,
      );
      break;
    case "session_info":
      out.push(String(e.name ?? ""));
      break;
    case "mode_change":
      out.push(String(e.mode ?? ""));
      break;
  }
  return out;
}

/** A short text for the entry (message text, summary, model name, label…), not truncated. */
export function entryText(entry: SessionEntry): string {
  return entryPieces(entry).join("");
}

/**
 * `flatten(entryText(entry), width)`, reading only the beginning of the entry's text: a tree of
 * 100,000 entries makes its snippets without copying each tool output whole.
 */
export function entrySnippet(entry: SessionEntry, width: number): string {
  return flattenPieces(entryPieces(entry), width);
}

/**
 * The first `width` characters of the entry's folded text (as flatten folds it), without a mark:
 * `cut` tells that the text goes on (the tree sends this; its renderer adds the "…").
 */
export function entrySnippetCut(entry: SessionEntry, width: number): { text: string; cut: boolean } {
  return foldPieces(entryPieces(entry), width);
}
