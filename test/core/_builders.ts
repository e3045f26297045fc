// Small builders for session entries and messages used by the core tests.
import type {
  AssistantMessage,
  CompactionEntry,
  SessionEntry,
  ToolResultMessage,
  Usage,
  UserMessage,
} from "../../core/session/entries.ts";

const BASE = Date.parse("2026-01-01T00:00:00.000Z");

/** ISO timestamp `seconds` after a fixed base. */
export function iso(seconds: number): string {
  return new Date(BASE + seconds * 1000).toISOString();
}

export function user(text: string, timestamp = BASE): UserMessage {
  return { role: "user", content: [{ type: "text", text }], timestamp };
}

export function usage(input: number, output = 0, cacheRead = 0, cacheWrite = 0): Usage {
  return {
    input,
    output,
    cacheRead,
    cacheWrite,
    totalTokens: input + output + cacheRead + cacheWrite,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  };
}

export function assistant(text: string, extra: Partial<AssistantMessage> = {}): AssistantMessage {
  return {
    role: "assistant",
    content: [{ type: "text", text }],
    api: "anthropic-messages",
    provider: "anthropic",
    model: "claude-test",
    usage: usage(10, 5),
    stopReason: "stop",
    timestamp: BASE,
    ...extra,
  };
}

/** An assistant message: `text`, then a tool call per [name, path] (ids c0, c1, …; arguments `{ path }`). */
export function withCalls(text: string, calls: [name: string, path: string][]): AssistantMessage {
  return assistant(text, {
    content: [
      { type: "text", text },
      ...calls.map(([name, path], i) => ({
        type: "toolCall" as const,
        id: `c${i}`,
        name,
        arguments: { path },
      })),
    ],
  });
}

export function toolResult(text: string, extra: Partial<ToolResultMessage> = {}): ToolResultMessage {
  return {
    role: "toolResult",
    toolCallId: "call_1",
    toolName: "read",
    content: [{ type: "text", text }],
    isError: false,
    timestamp: BASE,
    ...extra,
  };
}

let tick = 0;

/** A generic entry: `entry("x", "p", "custom", { customType: "t" })`. */
export function entry(id: string, parentId: string | null, type: string, fields: object = {}): SessionEntry {
  tick++;
  return { type, id, parentId, timestamp: iso(tick), ...fields } as SessionEntry;
}

export function msg(id: string, parentId: string | null, message: object): SessionEntry {
  return entry(id, parentId, "message", { message });
}

export function compaction(
  id: string,
  parentId: string | null,
  firstKeptEntryId: string,
  summary = `summary ${id}`,
): CompactionEntry {
  return entry(id, parentId, "compaction", {
    summary,
    firstKeptEntryId,
    tokensBefore: 1000,
  }) as CompactionEntry;
}

/** Links `entries` into a chain in array order (first one a root). */
export function chain(...entries: SessionEntry[]): SessionEntry[] {
  return entries.map((e, i) => ({ ...e, parentId: i === 0 ? null : (entries[i - 1]?.id ?? null) }));
}

/** Text of the first text block of a message (or its string content). */
export function textOf(message: unknown): string | undefined {
  const m = message as { content?: unknown; summary?: unknown };
  if (typeof m.summary === "string") return m.summary;
  if (typeof m.content === "string") return m.content;
  if (Array.isArray(m.content)) {
    const block = m.content.find((b: { type?: string }) => b.type === "text") as
      | { text?: string }
      | undefined;
    return block?.text;
  }
  return undefined;
}

/** Minimal templates for tests that do not care about Canopy's wording. */
export const plainTemplates = {
  compactionSummary: (s: string) => `COMPACTION\n\n<summary>\n${s}\n</summary>`,
  branchSummary: (s: string) => `BRANCH\n\n<summary>\n${s}\n</summary>`,
};
