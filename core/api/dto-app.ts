/**
 * DTOs of the chat turn (continuing a session from Canopy, D17), of the API-key status for the
 * settings screen (never a key's value), and of the desktop shell's commands to the renderer.
 */
import type { SummaryCutOff } from "../compaction/types.ts";
import type { StopReason } from "../session/entries.ts";

/** What `chat:send` / `chat:continue` did (the events told the details as they happened). */
/**
 * In the message of a chat turn (or summary) that ends in an error only to say where its result
 * went: saved where the view does not show it, another Canopy having deleted the session or undone
 * the edit it hangs below meanwhile (main/pipelines/persist.ts). The user's message is saved too.
 */
export const SAVED_ELSEWHERE = "; it is saved ";

export interface ChatTurnResultDto {
  sessionId: string;
  /** The user message this call appended (chat:continue: the one at the view leaf it answered). */
  userEntryId: string;
  /**
   * The reply the conversation now ends on: the answer to the user's message, or — after a
   * retry (overflow recovery) or an auto-continue — the last reply this call wrote.
   */
  assistantEntryId: string;
  stopReason: StopReason;
  /** The endpoint's error text when `stopReason` is "error". */
  errorMessage?: string;
  /** Every entry this call appended, in order (user, replies, compactions, synthetic prompts). */
  appendedEntryIds: string[];
  /** The last automatic compaction that ran during this call (SPEC §9.3–9.4). */
  autoCompaction?: {
    reason: "threshold" | "overflow";
    entryId: string | null;
    aborted: boolean;
    errorMessage?: string;
    /** Its summary calls that stopped at the output limit (saved as they came; see cutOffLine). */
    cutOff?: SummaryCutOff[];
  };
  /**
   * Tools the replies of this call asked to run along with their text (distinct names, in
   * order). Canopy offers and runs no tools: the calls are kept in the replies as `toolCall`
   * blocks, not executed. (A reply of tool calls only ends in `stopReason` "error" instead.)
   */
  toolCallsNotRun?: string[];
  /** A later step (compaction, auto-continue, retry) was cancelled; what is listed stays. */
  cancelled: boolean;
}

export interface SecretKeyStatus {
  /** The key's name: a model's `apiKeyEnv`. */
  name: string;
  set: boolean;
  /** "stored": encrypted by the desktop app; "env": from the environment variable. */
  source: "stored" | "env" | null;
}

export interface SecretsStatusDto {
  /** "safe-storage": the desktop app stores keys encrypted; "env": environment only. */
  storage: "safe-storage" | "env";
  /** Whether `secrets:set` can store a key here. */
  canStore: boolean;
  /** Why keys cannot be stored, or a stored key that could not be read. */
  note: string | null;
  keys: SecretKeyStatus[];
}

/** Menu actions and files opened from the OS, sent by the desktop shell (`app:command`). */
export type AppCommand =
  /** File › Export…: open the export dialog of the current session. */
  | { command: "export" }
  /** Session › Compact (Ctrl/Cmd+Shift+K): open the compaction plan of the current session. */
  | { command: "compact" }
  /** Session › Prune Old Tool Output… (Ctrl/Cmd+Shift+P): show what pruning would do in the current session. */
  | { command: "prune" }
  /** Session › Go to Leaf: select and show the view leaf of the current session. */
  | { command: "go-to-leaf" }
  /** A session file was opened (OS, command line, File › Import…, a file dropped on the window). */
  | { command: "open-session"; sessionId: string }
  /** Something to tell the user (an import that failed, a folder import's summary). */
  | { command: "notify"; level: "info" | "error"; message: string }
  /** Help › Keyboard Shortcuts: show the list of shortcuts. */
  | { command: "shortcuts" }
  /** View › Appearance: the theme source the window now follows. */
  | { command: "theme"; theme: "system" | "light" | "dark" };
