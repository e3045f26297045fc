/**
 * One-line descriptions of entries (kind + a text snippet), shared by the CLI's tree text and
 * the renderer's lists.
 */
import type { AgentMessage, SessionEntry } from "./entries.ts";

function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((block: unknown) => {
      const b = block as { type?: unknown; text?: unknown; thinking?: unknown; name?: unknown };
      if (b.type === "text" && typeof b.text === "string") return b.text;
      if (b.type === "toolCall" && typeof b.name === "string") return `${b.name}(…)`;
      if (b.type === "image") return "[image]";
      return "";
    })
    .filter((text) => text !== "")
    .join(" ");
}

function messageSnippet(message: AgentMessage): string {
  switch (message.role) {
    case "user":
    case "assistant":
    case "custom":
    case "hookMessage":
      return contentText(message.content);
    case "toolResult":
      return `${message.toolName}: ${contentText(message.content)}`;
    case "bashExecution":
      return `$ ${message.command}`;
    case "pythonExecution":
      return message.code;
    case "fileMention":
      return message.files.map((file) => file.path).join(", ");
    case "branchSummary":
    case "compactionSummary":
      return message.summary;
    default:
      return "";
  }
}

/**
 * The text on one line (whitespace runs folded to a space), cut to `width` with "…". Only the
 * start is shown, so only a growing prefix is folded, never a whole 100 KB tool output.
 */
export function flatten(text: string, width: number): string {
  for (let take = Math.max(64, width * 2); ; take *= 4) {
    const whole = take >= text.length;
    // Folding a prefix gives a prefix of the whole text's folded form (up to a trailing space).
    const flat = (whole ? text : text.slice(0, take)).replace(/\s+/g, " ").trim();
    if (flat.length > width) return `${flat.slice(0, Math.max(0, width - 1))}…`;
    if (whole) return flat;
  }
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

/** A short text for the entry (message text, summary, model name, label…), not truncated. */
export function entryText(entry: SessionEntry): string {
  const e = entry as SessionEntry & Record<string, unknown>;
  switch (entry.type) {
    case "message":
      return entry.message && typeof entry.message === "object" ? messageSnippet(entry.message as AgentMessage) : "";
    case "compaction":
    case "branch_summary":
      return typeof e.summary === "string" ? e.summary : "";
    case "custom_message":
      return `${String(e.customType)}: ${contentText(e.content)}`;
    case "custom":
      return String(e.customType ?? "");
    case "model_change":
      return typeof e.model === "string" ? e.model : `${String(e.provider ?? "?")}/${String(e.modelId ?? "?")}`;
    case "thinking_level_change":
      return String(e.thinkingLevel ?? "");
    case "label":
      return `${String(e.targetId ?? "?")} = ${typeof e.label === "string" && e.label ? e.label : "(cleared)"}`;
    case "session_info":
      return String(e.name ?? "");
    case "mode_change":
      return String(e.mode ?? "");
    default:
      return "";
  }
}
