/**
 * Tool calls in a chat-completions reply, assembled into the agents' `toolCall` content blocks
 * (SPEC §1.6): whole calls of a JSON reply, or streamed fragments joined by their `index`.
 * Canopy offers no tools and runs none; the calls are kept so nothing the model said is lost.
 */
import type { ToolCall } from "../../core/session/entries.ts";

interface Partial {
  id: string;
  name: string;
  args: string;
}

interface RawCall {
  index?: unknown;
  id?: unknown;
  function?: { name?: unknown; arguments?: unknown } | null;
}

const str = (value: unknown): string => (typeof value === "string" ? value : "");

/** The arguments as the agents store them: an object; text that is not one is kept beside it. */
function argumentsOf(text: string): Pick<ToolCall, "arguments"> & { rawArguments?: string } {
  if (text.trim() === "") return { arguments: {} };
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)) {
      return { arguments: parsed as Record<string, unknown> };
    }
  } catch {
    // Not JSON (a cut-off stream, a model's typo): kept verbatim below.
  }
  return { arguments: {}, rawArguments: text };
}

export class ToolCallCollector {
  private readonly calls = new Map<string, Partial>();
  private lastKey: string | undefined;

  /**
   * Adds the `tool_calls` of a message (`streamed` false: each element is a whole call) or of a
   * streamed delta (fragments: the first carries id and name, later ones more argument text).
   */
  add(holder: unknown, streamed: boolean): void {
    const raw = (holder as { tool_calls?: unknown } | null | undefined)?.tool_calls;
    if (!Array.isArray(raw)) return;
    for (const [position, item] of raw.entries()) {
      const call = (item ?? {}) as RawCall;
      const id = str(call.id);
      const key = !streamed
        ? `p${position}`
        : typeof call.index === "number"
          ? `i${call.index}`
          : // No index (some servers): a new id starts a call, a fragment without one continues the last.
            id !== ""
            ? `id:${id}`
            : (this.lastKey ?? "i0");
      const known = this.calls.get(key) ?? { id: "", name: "", args: "" };
      if (id !== "") known.id = id;
      const name = str(call.function?.name);
      // Servers that repeat the name in every fragment would double it if it were appended.
      if (name !== "") known.name = name;
      known.args += str(call.function?.arguments);
      this.calls.set(key, known);
      this.lastKey = key;
    }
  }

  /** The calls in order; a call without a name (nothing could run it) is left out. */
  blocks(): ToolCall[] {
    return [...this.calls.values()]
      .filter((call) => call.name !== "")
      .map((call, index) => ({
        type: "toolCall" as const,
        id: call.id || `call_${index}`,
        name: call.name,
        ...argumentsOf(call.args),
      }));
  }
}

/** The distinct tool names of some calls, in order, for the messages that name them. */
export function toolNames(calls: readonly ToolCall[]): string[] {
  return [...new Set(calls.map((call) => call.name))];
}
