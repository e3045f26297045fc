/**
 * The five hook events of SPEC §9.2 with their payloads and the results a handler may return.
 */
import type { AbortSignalLike, CompactionPreparation, CompactionResult } from "../../core/compaction/types.ts";
import type { AgentMessage, BranchSummaryEntry, CompactionEntry, SessionEntry } from "../../core/session/entries.ts";

export interface TreePreparation {
  targetId: string;
  oldLeafId: string | null;
  commonAncestorId: string | null;
  entriesToSummarize: SessionEntry[];
  userWantsSummary: boolean;
}

export interface HookEvents {
  session_before_compact: {
    payload: {
      sessionId: string;
      preparation: CompactionPreparation;
      branchEntries: SessionEntry[];
      customInstructions: string | undefined;
      signal: AbortSignalLike;
    };
    result: { cancel?: boolean; compaction?: CompactionResult } | undefined;
  };
  "session.compacting": {
    payload: { sessionId: string; messages: AgentMessage[] };
    result: { context?: string[]; prompt?: string; preserveData?: Record<string, unknown> } | undefined;
  };
  session_compact: {
    payload: { sessionId: string; compactionEntry: CompactionEntry; fromExtension: boolean };
    result: undefined;
  };
  session_before_tree: {
    payload: { sessionId: string; preparation: TreePreparation; signal: AbortSignalLike };
    result: { cancel?: boolean; summary?: { summary: string; details?: unknown } } | undefined;
  };
  session_tree: {
    payload: {
      sessionId: string;
      newLeafId: string | null;
      oldLeafId: string | null;
      summaryEntry?: BranchSummaryEntry | undefined;
      fromExtension?: boolean | undefined;
    };
    result: undefined;
  };
}

export type HookEventName = keyof HookEvents;
export const HOOK_EVENT_NAMES: readonly HookEventName[] = [
  "session_before_compact",
  "session.compacting",
  "session_compact",
  "session_before_tree",
  "session_tree",
];

export type HookHandler<E extends HookEventName> = (
  payload: HookEvents[E]["payload"],
  // biome-ignore lint/suspicious/noConfusingVoidType: handlers that return nothing are the common case
) => HookEvents[E]["result"] | void | Promise<HookEvents[E]["result"] | void>;

export interface HookError {
  extension: string;
  /** The event whose handler failed, or "load" when the module itself could not be loaded. */
  event: HookEventName | "load";
  message: string;
}

/** What a user hook module's default export receives. */
export interface HookApi {
  on<E extends HookEventName>(event: E, handler: HookHandler<E>): void;
}
