/**
 * Text helpers of the built-in offline summarizer (D16): plain text of provider messages, tool
 * call one-liners, clipping, and reading the `## Section` layout of an earlier summary back so
 * an update can merge it. Deterministic: no clock, no randomness, stable orders.
 */
import type { LlmMessage } from "../session/entries.ts";
import { textBlocksOf } from "../session/message-text.ts";

type Loose = { [key: string]: unknown };

function isObject(value: unknown): value is Loose {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Whitespace collapsed to single spaces, cut to `max` chars with an ellipsis. */
export function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1).trimEnd()}…`;
}

/** Text blocks (or string content) of a message joined by newlines; images and calls ignored. */
export function messageText(message: LlmMessage): string {
  return textBlocksOf(message.content);
}

/** `name(path)` / `name(command)` / `name(first string argument)` for each tool call. */
export function toolCallsOf(message: LlmMessage): string[] {
  if (message.role !== "assistant" || !Array.isArray(message.content)) return [];
  const calls: string[] = [];
  for (const block of message.content as unknown[]) {
    if (!isObject(block) || block.type !== "toolCall") continue;
    const name = typeof block.name === "string" && block.name !== "" ? block.name : "tool";
    const args = isObject(block.arguments) ? block.arguments : {};
    const main = [args.path, args.command, ...Object.values(args)].find((v) => typeof v === "string");
    calls.push(typeof main === "string" && main !== "" ? `${name}(${clip(main, 60)})` : name);
  }
  return calls;
}

const WRAPPED_SUMMARY = /<summary>\n([\s\S]*)\n<\/summary>/;

/** The summary inside a summary-context message (compaction or branch), if it is one. */
export function embeddedSummary(text: string): string | undefined {
  return WRAPPED_SUMMARY.exec(text)?.[1];
}

/** True for user messages that are framing, not a request (summaries, file mentions). */
export function isFramingText(text: string): boolean {
  return embeddedSummary(text) !== undefined || text.startsWith("<system-reminder>");
}

/** `## Heading` sections of a summary: lower-cased heading → its non-empty lines, trimmed. */
export function parseSections(summary: string): Map<string, string[]> {
  const sections = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const raw of summary.split("\n")) {
    const heading = /^##\s+(.+?)\s*$/.exec(raw);
    if (heading?.[1] !== undefined) {
      const key = heading[1].toLowerCase();
      current = sections.get(key) ?? [];
      sections.set(key, current);
      continue;
    }
    const line = raw.trim();
    if (current !== undefined && line !== "") current.push(line);
  }
  return sections;
}

/** Bullet or numbered items of the given sections, sub-headings left out. */
export function itemsOf(sections: Map<string, string[]>, names: readonly string[]): string[] {
  const items: string[] = [];
  for (const name of names) {
    for (const line of sections.get(name) ?? []) {
      if (/^(?:[-*]|\d+\.)\s+/.test(line)) items.push(line.replace(/^(?:[-*]|\d+\.)\s+/, "- "));
    }
  }
  return items;
}

export type FileKind = "Read" | "Edited" | "Written";
export const FILE_KINDS: readonly FileKind[] = ["Read", "Edited", "Written"];
const MORE = /^\(\+\d+ more\)$/;

/** The `- Read: a, b` lines of a Files section back into lists. */
export function parseFileLines(lines: readonly string[]): Record<FileKind, string[]> {
  const files: Record<FileKind, string[]> = { Read: [], Edited: [], Written: [] };
  for (const line of lines) {
    const match = /^- (Read|Edited|Written): (.+)$/.exec(line);
    if (match?.[1] === undefined || match[2] === undefined) continue;
    const paths = match[2].split(", ").filter((p) => p !== "" && !MORE.test(p));
    files[match[1] as FileKind].push(...paths);
  }
  return files;
}

/** Distinct values, the last occurrence deciding the position, at most `max` (the newest). */
export function lastDistinct(values: readonly string[], max: number): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (let i = values.length - 1; i >= 0 && out.length < max; i--) {
    const value = values[i];
    if (value === undefined || seen.has(value)) continue;
    seen.add(value);
    out.unshift(value);
  }
  return out;
}

/** `a, b, c (+N more)` capped at `max` names. */
export function listNames(names: readonly string[], max: number): string {
  const shown = names.slice(0, max).join(", ");
  return names.length > max ? `${shown}, (+${names.length - max} more)` : shown;
}
