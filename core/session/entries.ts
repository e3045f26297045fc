/**
 * Entry and message types of agent session files, both dialects (pi and oh-my-pi), SPEC §1.3–1.6.
 * Known kinds are a discriminated union; anything else is kept as an UnknownEntry, verbatim.
 * Every object type is open ([key: string]: unknown) so unknown fields survive a round trip (D1).
 */

/** Session id: the `id` of a file's header. Opaque. */
export type SessionId = string & { readonly __brand: "SessionId" };
/** Entry id: unique within a file (when the file is healthy). Opaque. */
export type EntryId = string & { readonly __brand: "EntryId" };

export const CURRENT_SESSION_VERSION = 3;

type Open = { [key: string]: unknown };

export interface SessionHeader extends Open {
  type: "session";
  version?: number;
  id: string;
  title?: string;
  timestamp: string;
  cwd: string;
  parentSession?: string;
}

// ── content blocks ───────────────────────────────────────────────────────────
export interface TextContent extends Open {
  type: "text";
  text: string;
  textSignature?: string;
}
export interface ThinkingContent extends Open {
  type: "thinking";
  thinking: string;
  thinkingSignature?: string;
}
export interface ImageContent extends Open {
  type: "image";
  data: string;
  mimeType: string;
}
export interface ToolCall extends Open {
  type: "toolCall";
  id: string;
  name: string;
  arguments: Record<string, unknown>;
  thoughtSignature?: string;
}

export interface UsageCost {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  total: number;
}
export interface Usage extends Open {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  totalTokens?: number;
  cost?: UsageCost;
}

// ── messages (AgentMessage) ──────────────────────────────────────────────────
export interface UserMessage extends Open {
  role: "user";
  content: string | (TextContent | ImageContent)[];
  timestamp: number;
  synthetic?: boolean;
}
export type StopReason = "stop" | "length" | "toolUse" | "error" | "aborted";
export interface AssistantMessage extends Open {
  role: "assistant";
  content: (TextContent | ThinkingContent | ToolCall)[];
  api?: string;
  provider: string;
  model: string;
  usage?: Usage;
  stopReason?: StopReason;
  errorMessage?: string;
  timestamp: number;
}
export interface ToolResultMessage extends Open {
  role: "toolResult";
  toolCallId: string;
  toolName: string;
  content: (TextContent | ImageContent)[];
  details?: unknown;
  isError: boolean;
  prunedAt?: number;
  timestamp: number;
}
export interface OutputMeta extends Open {
  truncation?: Open;
  limits?: Open;
  diagnostics?: Open;
}
export interface BashExecutionMessage extends Open {
  role: "bashExecution";
  command: string;
  output: string;
  exitCode: number | undefined;
  cancelled: boolean;
  truncated: boolean;
  meta?: OutputMeta;
  timestamp: number;
  excludeFromContext?: boolean;
}
export interface PythonExecutionMessage extends Open {
  role: "pythonExecution";
  code: string;
  output: string;
  exitCode: number | undefined;
  cancelled: boolean;
  truncated: boolean;
  meta?: OutputMeta;
  timestamp: number;
  excludeFromContext?: boolean;
}
export interface MentionedFile extends Open {
  path: string;
  content: string;
  lineCount?: number;
  byteSize?: number;
  skippedReason?: "tooLarge";
  image?: ImageContent;
}
export interface FileMentionMessage extends Open {
  role: "fileMention";
  files: MentionedFile[];
  timestamp: number;
}
export interface CustomMessage extends Open {
  role: "custom" | "hookMessage";
  customType: string;
  content: string | (TextContent | ImageContent)[];
  display: boolean;
  details?: unknown;
  timestamp: number;
}
export interface BranchSummaryMessage extends Open {
  role: "branchSummary";
  summary: string;
  fromId: string;
  timestamp: number;
}
export interface CompactionSummaryMessage extends Open {
  role: "compactionSummary";
  summary: string;
  shortSummary?: string;
  tokensBefore: number;
  timestamp: number;
}

export type AgentMessage =
  | UserMessage
  | AssistantMessage
  | ToolResultMessage
  | BashExecutionMessage
  | PythonExecutionMessage
  | FileMentionMessage
  | CustomMessage
  | BranchSummaryMessage
  | CompactionSummaryMessage;

/** What a provider receives after convertToLlm (SPEC §3.4). */
export type LlmMessage = UserMessage | AssistantMessage | ToolResultMessage;

// ── entries ──────────────────────────────────────────────────────────────────
export interface EntryBase extends Open {
  id: string;
  parentId: string | null;
  timestamp: string;
}
export interface MessageEntry extends EntryBase {
  type: "message";
  message: AgentMessage;
}
export interface ThinkingLevelChangeEntry extends EntryBase {
  type: "thinking_level_change";
  thinkingLevel: string;
}
/** omp: `model` = "provider/modelId" (+ role); pi / legacy: `provider` + `modelId`. */
export interface ModelChangeEntry extends EntryBase {
  type: "model_change";
  model?: string;
  role?: string;
  provider?: string;
  modelId?: string;
}
export interface FileDetails extends Open {
  readFiles?: string[];
  modifiedFiles?: string[];
}
export interface CompactionEntry extends EntryBase {
  type: "compaction";
  summary: string;
  shortSummary?: string;
  firstKeptEntryId?: string;
  tokensBefore: number;
  details?: unknown;
  preserveData?: Record<string, unknown>;
  fromExtension?: boolean;
  fromHook?: boolean;
}
export interface BranchSummaryEntry extends EntryBase {
  type: "branch_summary";
  fromId: string;
  summary: string;
  details?: unknown;
  fromExtension?: boolean;
  fromHook?: boolean;
}
export interface CustomEntry extends EntryBase {
  type: "custom";
  customType: string;
  data?: unknown;
}
export interface CustomMessageEntry extends EntryBase {
  type: "custom_message";
  customType: string;
  content: string | (TextContent | ImageContent)[];
  details?: unknown;
  display: boolean;
}
export interface LabelEntry extends EntryBase {
  type: "label";
  targetId: string;
  label?: string;
}
export interface TtsrInjectionEntry extends EntryBase {
  type: "ttsr_injection";
  injectedRules: string[];
}
export interface SessionInitEntry extends EntryBase {
  type: "session_init";
  systemPrompt: string;
  task: string;
  tools: string[];
  outputSchema?: unknown;
}
export interface ModeChangeEntry extends EntryBase {
  type: "mode_change";
  mode: string;
  data?: Record<string, unknown>;
}
/** pi dialect: display name. */
export interface SessionInfoEntry extends EntryBase {
  type: "session_info";
  name?: string;
}

export type KnownEntry =
  | MessageEntry
  | ThinkingLevelChangeEntry
  | ModelChangeEntry
  | CompactionEntry
  | BranchSummaryEntry
  | CustomEntry
  | CustomMessageEntry
  | LabelEntry
  | TtsrInjectionEntry
  | SessionInitEntry
  | ModeChangeEntry
  | SessionInfoEntry;

export type KnownEntryType = KnownEntry["type"];

export const KNOWN_ENTRY_TYPES: readonly KnownEntryType[] = [
  "message",
  "thinking_level_change",
  "model_change",
  "compaction",
  "branch_summary",
  "custom",
  "custom_message",
  "label",
  "ttsr_injection",
  "session_init",
  "mode_change",
  "session_info",
];

/** The roles of AgentMessage (SPEC §3.4): a message with another is never sent to the model. */
export const KNOWN_MESSAGE_ROLES: readonly AgentMessage["role"][] = [
  "user",
  "assistant",
  "toolResult",
  "bashExecution",
  "pythonExecution",
  "fileMention",
  "custom",
  "hookMessage",
  "branchSummary",
  "compactionSummary",
];

/** Whether a message's `role` (anything, as the file has it) is one convertToLlm knows. */
export function isKnownMessageRole(role: unknown): boolean {
  return typeof role === "string" && (KNOWN_MESSAGE_ROLES as readonly string[]).includes(role);
}

/** An entry of a type Canopy does not know: kept verbatim, shown, exported, never sent (D1). */
export interface UnknownEntry extends EntryBase {
  type: string;
}

/** Any entry line of a file. Narrow with `isKnownEntry` / `isEntryOfType`. */
export type SessionEntry = KnownEntry | UnknownEntry;

export function isKnownEntry(entry: SessionEntry): entry is KnownEntry {
  return (KNOWN_ENTRY_TYPES as readonly string[]).includes(entry.type);
}

export function isEntryOfType<T extends KnownEntryType>(
  entry: SessionEntry,
  type: T,
): entry is Extract<KnownEntry, { type: T }> {
  return entry.type === type;
}
