/**
 * convertToLlm (SPEC §3.4, D4): agent messages → the user/assistant/toolResult messages a
 * provider receives, keeping for each output message the index of the agent message it came
 * from. Summary framing comes from Canopy's templates, passed in (core reads no files).
 */
import type {
  AgentMessage,
  BashExecutionMessage,
  FileMentionMessage,
  ImageContent,
  LlmMessage,
  OutputMeta,
  PythonExecutionMessage,
  TextContent,
  ToolResultMessage,
  UserMessage,
} from "./entries.ts";

/** Framing of stored summaries for the model (prompts/*-summary-context.md). */
export interface ContextTemplates {
  compactionSummary(summary: string): string;
  branchSummary(summary: string): string;
}

export interface LlmConversion {
  messages: LlmMessage[];
  /** For each output message, the index of its source in the input list. */
  sources: number[];
}

type Loose = { [key: string]: unknown };

function isObject(value: unknown): value is Loose {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const FENCE = "```";

/** Byte size as the agents print it: 512B, 1.5KB, 2.0MB. */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes}B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)}KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)}MB`;
}

function num(value: unknown): number | undefined {
  return typeof value === "number" ? value : undefined;
}

function truncationNotice(t: Loose): string {
  const range = isObject(t.shownRange) ? t.shownRange : undefined;
  const start = num(range?.start);
  const end = num(range?.end);
  let notice =
    start !== undefined && end !== undefined && end >= start
      ? `Showing lines ${start}-${end} of ${t.totalLines}`
      : `Showing ${t.outputLines} of ${t.totalLines} lines`;
  if (t.truncatedBy === "bytes")
    notice += ` (${formatSize(num(t.maxBytes) ?? num(t.outputBytes) ?? 0)} limit)`;
  if (t.nextOffset !== undefined && t.nextOffset !== null)
    notice += `. Use offset=${t.nextOffset} to continue`;
  if (typeof t.artifactId === "string" || typeof t.artifactId === "number") {
    notice += `. Full: artifact://${t.artifactId}`;
  }
  return notice;
}

/** The notice appended to bash/python output from its `meta` (SPEC §3.4); "" without meta. */
export function formatOutputNotice(meta: OutputMeta | undefined): string {
  if (!isObject(meta)) return "";
  const parts: string[] = [];
  if (isObject(meta.truncation)) parts.push(truncationNotice(meta.truncation));
  const limits = isObject(meta.limits) ? meta.limits : {};
  const limit = (key: string, noun: string): void => {
    const l = limits[key];
    if (isObject(l)) parts.push(`${l.reached} ${noun} limit reached. Use limit=${l.suggestion} for more`);
  };
  limit("matchLimit", "matches");
  limit("resultLimit", "results");
  limit("headLimit", "results");
  const column = limits.columnTruncated;
  if (isObject(column)) parts.push(`Some lines truncated to ${column.maxColumn} chars`);
  let text = parts.length > 0 ? `\n\n[${parts.join(". ")}]` : "";
  const d = meta.diagnostics;
  if (isObject(d) && Array.isArray(d.messages) && d.messages.length > 0) {
    text += `\n\nLSP Diagnostics (${d.summary}):\n  ${d.messages.join("\n  ")}`;
  }
  return text;
}

export function bashExecutionToText(m: BashExecutionMessage): string {
  let text = `Ran \`${m.command}\`\n`;
  text += m.output ? `${FENCE}\n${m.output}\n${FENCE}` : "(no output)";
  if (m.cancelled) text += "\n\n(command cancelled)";
  else if (typeof m.exitCode === "number" && m.exitCode !== 0)
    text += `\n\nCommand exited with code ${m.exitCode}`;
  if (m.meta !== undefined) text += formatOutputNotice(m.meta);
  else if (m.truncated && typeof m.fullOutputPath === "string") {
    // pi files: no meta, the full output was saved to a file.
    text += `\n\n[Output truncated. Full output: ${m.fullOutputPath}]`;
  }
  return text;
}

export function pythonExecutionToText(m: PythonExecutionMessage): string {
  let text = `Ran Python:\n${FENCE}python\n${m.code}\n${FENCE}\n`;
  text += m.output ? `Output:\n${FENCE}\n${m.output}\n${FENCE}` : "(no output)";
  if (m.cancelled) text += "\n\n(execution cancelled)";
  else if (typeof m.exitCode === "number" && m.exitCode !== 0)
    text += `\n\nExecution failed with code ${m.exitCode}`;
  return text + formatOutputNotice(m.meta);
}

function fileMentionContent(m: FileMentionMessage): (TextContent | ImageContent)[] {
  // A file that is no object (null in a hand-edited line) is left out: the agent would fail on it.
  const files = (Array.isArray(m.files) ? m.files : []).filter((f) => f !== null && typeof f === "object");
  const rendered = files.map((f) => `<file path="${f.path}">${f.content ? `\n${f.content}\n` : "\n"}</file>`);
  const text: TextContent = {
    type: "text",
    text: `<system-reminder>\n${rendered.join("\n\n")}\n</system-reminder>`,
  };
  const images = files.flatMap((f) => (f.image ? [f.image] : []));
  return [text, ...images];
}

function prunedToolResult(m: ToolResultMessage): ToolResultMessage {
  const blocks = Array.isArray(m.content) ? m.content : [];
  const joined = blocks
    .map((b) => (b !== null && typeof b === "object" && b.type === "text" ? b.text : ""))
    .join("");
  return { ...m, content: [{ type: "text", text: joined === "" ? "[Output truncated]" : joined }] };
}

function user(content: UserMessage["content"], timestamp: number): UserMessage {
  return { role: "user", content, timestamp };
}

function textUser(text: string, timestamp: number): UserMessage {
  return user([{ type: "text", text }], timestamp);
}

/** One agent message → its provider message, or undefined when it is not sent. */
export function messageToLlm(m: AgentMessage, templates: ContextTemplates): LlmMessage | undefined {
  switch (m.role) {
    case "user":
    case "assistant":
      return m;
    case "toolResult":
      return m.prunedAt !== undefined && m.prunedAt !== null ? prunedToolResult(m) : m;
    case "bashExecution":
      return m.excludeFromContext ? undefined : textUser(bashExecutionToText(m), m.timestamp);
    case "pythonExecution":
      return m.excludeFromContext ? undefined : textUser(pythonExecutionToText(m), m.timestamp);
    case "custom":
    case "hookMessage":
      return user(
        typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content,
        m.timestamp,
      );
    case "branchSummary":
      return textUser(templates.branchSummary(m.summary), m.timestamp);
    case "compactionSummary":
      return textUser(templates.compactionSummary(m.summary), m.timestamp);
    case "fileMention":
      return user(fileMentionContent(m), m.timestamp);
    default:
      // Unknown roles are kept in the session but never sent (D1).
      return undefined;
  }
}

export function convertToLlmWithSources(
  messages: readonly AgentMessage[],
  templates: ContextTemplates,
): LlmConversion {
  const out: LlmConversion = { messages: [], sources: [] };
  messages.forEach((m, i) => {
    const converted = messageToLlm(m, templates);
    if (converted === undefined) return;
    out.messages.push(converted);
    out.sources.push(i);
  });
  return out;
}

export function convertToLlm(messages: readonly AgentMessage[], templates: ContextTemplates): LlmMessage[] {
  return convertToLlmWithSources(messages, templates).messages;
}
