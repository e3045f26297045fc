/**
 * D11: a compaction supplied by a `session_before_compact` hook is checked before it is saved,
 * by manual and automatic compaction alike: a summary text, a first kept entry on the path, a
 * number for tokensBefore; optional fields of the wrong type are left out.
 */
import type { CompactionResult } from "../../core/compaction/types.ts";
import type { SessionState } from "./session-state.ts";

export type HookCompactionCheck = { ok: true; result: CompactionResult } | { ok: false; problem: string };

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** The hook's result as it may be saved, or why it may not (a sentence without a final period). */
export function checkHookCompaction(value: unknown, state: Pick<SessionState, "path" | "leafId">): HookCompactionCheck {
  const result = isPlainObject(value) ? value : {};
  if (typeof result.summary !== "string")
    return { ok: false, problem: "A hook's compaction has no summary text" };
  const firstKept = result.firstKeptEntryId;
  if (typeof firstKept !== "string" || !state.path.some((entry) => entry.id === firstKept)) {
    return {
      ok: false,
      problem: `A hook's compaction keeps from ${String(firstKept)}, which is not on the path to ${state.leafId}`,
    };
  }
  const tokensBefore = result.tokensBefore;
  return {
    ok: true,
    result: {
      summary: result.summary,
      firstKeptEntryId: firstKept,
      tokensBefore: typeof tokensBefore === "number" && Number.isFinite(tokensBefore) ? tokensBefore : 0,
      ...(typeof result.shortSummary === "string" ? { shortSummary: result.shortSummary } : {}),
      ...(result.details === undefined ? {} : { details: result.details }),
      ...(isPlainObject(result.preserveData) ? { preserveData: result.preserveData } : {}),
    },
  };
}
