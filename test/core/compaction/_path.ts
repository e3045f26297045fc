// Builds chained test paths with deterministic ids (e0, e1, …) and sizes in heuristic tokens:
// a message of n tokens carries text of 4×n chars (SPEC §5.3 notation).
import type {
  AssistantMessage,
  SessionEntry,
  ToolCall,
  ToolResultMessage,
  Usage,
  UserMessage,
} from "../../../core/session/entries.ts";

const BASE = Date.parse("2026-01-01T00:00:00.000Z");

/** Text of exactly 4×n chars (n heuristic tokens). */
export function text(tokens: number): string {
  return "x".repeat(tokens * 4);
}

export function zeroUsage(): Usage {
  return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0 };
}

export interface PathBuilder {
  readonly entries: SessionEntry[];
  /** Id of the entry at index i ("e<i>"). */
  id(i: number): string;
  add(type: string, fields?: object): string;
  u(tokens: number): string;
  a(
    tokens: number,
    extra?: { usage?: Usage; calls?: ToolCall[]; stopReason?: AssistantMessage["stopReason"] },
  ): string;
  t(tokens: number, toolName?: string, extra?: Partial<ToolResultMessage>): string;
  bash(tokens: number): string;
  /** A `message` entry with role custom (a migrated v2 hook message). */
  custom(tokens: number): string;
  m(): string;
  l(): string;
  cm(tokens: number): string;
  bs(tokens: number, fields?: object): string;
  c(firstKeptEntryId: string, summary?: string, fields?: object): string;
  label(targetId: string): string;
}

export function call(name: string, args: Record<string, unknown>, id = `call_${name}`): ToolCall {
  return { type: "toolCall", id, name, arguments: args };
}

export function pathBuilder(): PathBuilder {
  const entries: SessionEntry[] = [];
  const add = (type: string, fields: object = {}): string => {
    const i = entries.length;
    const id = `e${i}`;
    const parentId = i === 0 ? null : `e${i - 1}`;
    entries.push({
      type,
      id,
      parentId,
      timestamp: new Date(BASE + i * 1000).toISOString(),
      ...fields,
    } as SessionEntry);
    return id;
  };
  const message = (m: object): string =>
    add("message", { message: { timestamp: BASE + entries.length, ...m } });
  return {
    entries,
    id: (i) => `e${i}`,
    add,
    u: (n) =>
      message({ role: "user", content: [{ type: "text", text: text(n) }] } satisfies Omit<
        UserMessage,
        "timestamp"
      >),
    a: (n, extra = {}) =>
      message({
        role: "assistant",
        content: [{ type: "text", text: text(n) }, ...(extra.calls ?? [])],
        api: "anthropic-messages",
        provider: "anthropic",
        model: "claude-test",
        usage: extra.usage ?? zeroUsage(),
        stopReason: extra.stopReason ?? "stop",
      } satisfies Omit<AssistantMessage, "timestamp">),
    t: (n, toolName = "bash", extra = {}) =>
      message({
        role: "toolResult",
        toolCallId: `call_${entries.length}`,
        toolName,
        content: [{ type: "text", text: text(n) }],
        isError: false,
        ...extra,
      }),
    bash: (n) =>
      message({
        role: "bashExecution",
        command: "",
        output: text(n),
        exitCode: 0,
        cancelled: false,
        truncated: false,
      }),
    custom: (n) => message({ role: "custom", customType: "hook", content: text(n), display: true }),
    m: () => add("model_change", { model: "openai/gpt-4" }),
    l: () => add("thinking_level_change", { thinkingLevel: "high" }),
    cm: (n) => add("custom_message", { customType: "ext", content: text(n), display: true }),
    bs: (n, fields = {}) => add("branch_summary", { fromId: "root", summary: text(n), ...fields }),
    c: (firstKeptEntryId, summary = "S1", fields = {}) =>
      add("compaction", { summary, firstKeptEntryId, tokensBefore: 1000, ...fields }),
    label: (targetId) => add("label", { targetId, label: "mark" }),
  };
}

/** Ids of the path entries at the given indices. */
export function ids(...indices: number[]): string[] {
  return indices.map((i) => `e${i}`);
}

/**
 * A path written as words, one entry each, in order: `u`, `a`, `t`, `bash`, `custom`, `cm`, `bs`
 * with their size in tokens (`u1000`), `m` and `l` (model and thinking-level changes), `c:<id>`
 * (a compaction keeping from <id>) and `label:<id>`. The builder is returned to add more.
 */
export function pathOf(spec: string): PathBuilder {
  const p = pathBuilder();
  for (const word of spec.split(/\s+/).filter(Boolean)) {
    const [, kind, size, target] = /^([a-z]+)(\d*)(?::(\S+))?$/.exec(word) ?? [];
    const tokens = Number(size);
    if (
      kind === "u" ||
      kind === "a" ||
      kind === "t" ||
      kind === "bash" ||
      kind === "custom" ||
      kind === "cm"
    ) {
      if (!size) throw new Error(`pathOf: "${word}" needs a size`);
      p[kind](tokens);
    } else if (kind === "bs" && size) p.bs(tokens);
    else if (kind === "m" || kind === "l") p[kind]();
    else if ((kind === "c" || kind === "label") && target) p[kind](target);
    else throw new Error(`pathOf: unknown word "${word}"`);
  }
  return p;
}
