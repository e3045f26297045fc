/**
 * Turns parsed entries into database rows (the indexed columns and the token estimate of the
 * message the entry produces), says what text search indexes, and detects the dialect (D1).
 */
import { estimateTokens } from "../../core/compaction/tokens.ts";
import { compactionToMessage, entryToMessage } from "../../core/session/context.ts";
import type { CompactionEntry, SessionEntry, SessionHeader } from "../../core/session/entries.ts";
import { joinNames, textBlocksOf } from "../../core/session/message-text.ts";
import { entryUsageAmounts } from "../../core/session/usage-totals.ts";
import type { EntryOrigin, NewEntryRow } from "../store/repos/entries.ts";

type Loose = { [key: string]: unknown };

function isObject(value: unknown): value is Loose {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function str(value: unknown): string | null {
  return typeof value === "string" ? value : null;
}

const contentText = textBlocksOf;

/** What full-text search indexes for an entry: words a user would look for, not metadata. */
export function searchTextOf(entry: SessionEntry): string {
  const e = entry as Loose;
  switch (entry.type) {
    case "message": {
      const m = e.message;
      if (!isObject(m)) return "";
      switch (m.role) {
        case "bashExecution":
          return `${str(m.command) ?? ""}\n${str(m.output) ?? ""}`;
        case "pythonExecution":
          return `${str(m.code) ?? ""}\n${str(m.output) ?? ""}`;
        case "fileMention":
          return Array.isArray(m.files)
            ? m.files.map((f) => (isObject(f) ? (str(f.path) ?? "") : "")).join("\n")
            : "";
        default:
          // user, assistant (text blocks only: thinking and tool arguments are noise), toolResult, custom
          return contentText(m.content);
      }
    }
    case "custom_message":
      return contentText(e.content);
    case "compaction":
      return [str(e.shortSummary), str(e.summary)].filter((s) => s).join("\n");
    case "branch_summary":
      return str(e.summary) ?? "";
    default:
      return "";
  }
}

/** Heuristic tokens of the message the entry contributes to a context (0 for metadata). */
export function entryTokens(entry: SessionEntry): number {
  try {
    if (entry.type === "compaction") {
      return typeof (entry as Loose).summary === "string"
        ? estimateTokens(compactionToMessage(entry as CompactionEntry))
        : 0;
    }
    const message = entryToMessage(entry);
    return message ? estimateTokens(message) : 0;
  } catch (error) {
    // A structurally odd entry (kept verbatim, D1) must not stop an import; it just counts 0.
    void error;
    return 0;
  }
}

/**
 * The row for one entry; `json` is what is stored for it: the original line for v3 files, the
 * migrated entry's JSON otherwise, as text or as its UTF-8 bytes.
 */
export function toEntryRow(
  entry: SessionEntry,
  seq: number,
  json: string | Uint8Array,
  origin: EntryOrigin,
): NewEntryRow {
  const e = entry as Loose;
  const m = entry.type === "message" && isObject(e.message) ? e.message : null;
  const role = m ? str(m.role) : null;
  const model = (m && role === "assistant" && joinNames([m.provider, m.model])) || null;
  return {
    seq,
    id: str(e.id),
    parentId: str(e.parentId),
    type: entry.type,
    role,
    model,
    timestamp: str(e.timestamp),
    tokens: entryTokens(entry),
    usage: entryUsageAmounts(entry),
    json,
    origin,
  };
}

const OMP_ONLY_TYPES = new Set(["ttsr_injection", "session_init", "mode_change"]);

/** True when an entry can only have been written by oh-my-pi (D1). */
export function isOmpEntry(entry: SessionEntry): boolean {
  const e = entry as Loose;
  if (OMP_ONLY_TYPES.has(entry.type)) return true;
  if ("fromExtension" in e) return true;
  return entry.type === "model_change" && typeof e.model === "string";
}

export function isOmpHeader(header: SessionHeader): boolean {
  return typeof header.title === "string";
}
