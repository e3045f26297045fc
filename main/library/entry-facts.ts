/**
 * The few facts about a session's entry content that its library figures need besides the
 * structural columns: dialect (D1), first user message (§10.3), display name, compaction title.
 * Plain data, gathered while entries are parsed (on the main thread or in the import worker).
 */
import { isKnownMessageRole, KNOWN_ENTRY_TYPES, type SessionEntry } from "../../core/session/entries.ts";
import { isOmpEntry } from "./entry-rows.ts";

type Loose = { [key: string]: unknown };

export interface ContentFacts {
  omp: boolean;
  /** Text of the first user message; null while none was seen. */
  firstMessage: string | null;
  displayName: string | null;
  compactionTitle: string | null;
}

export function emptyContentFacts(omp: boolean): ContentFacts {
  return { omp, firstMessage: null, displayName: null, compactionTitle: null };
}

/** SPEC §10.3: text blocks of the first user message joined with a space. */
export function firstMessageTextOf(entry: Loose | null): string {
  if (entry === null) return "(no messages)";
  const message = entry.message as Loose | undefined;
  const content = message?.content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter(
      (b): b is { type: "text"; text: string } =>
        (b as Loose)?.type === "text" && typeof (b as Loose).text === "string",
    )
    .map((b) => b.text)
    .join(" ");
}

/** `entry[key]` trimmed when it is a non-empty string, else null. */
export function trimmedString(entry: Loose, key: string): string | null {
  const value = entry[key];
  return typeof value === "string" && value.trim() !== "" ? value.trim() : null;
}

/** Updates `facts` with one entry, given in file order (`role` as in its row). */
export function observeEntry(facts: ContentFacts, entry: SessionEntry, role: string | null): void {
  const e = entry as Loose;
  if (!facts.omp && isOmpEntry(entry)) facts.omp = true;
  if (entry.type === "message") {
    if (facts.firstMessage === null && role === "user") facts.firstMessage = firstMessageTextOf(e);
  } else if (entry.type === "session_info") {
    facts.displayName = trimmedString(e, "name") ?? facts.displayName;
  } else if (entry.type === "compaction") {
    facts.compactionTitle = trimmedString(e, "shortSummary") ?? facts.compactionTitle;
  }
}

const KNOWN_TYPES = new Set<string>(KNOWN_ENTRY_TYPES);

/** Whether `type` is an entry type the tree knows (an unknown one is a tree problem, D3). */
export function isKnownEntryType(type: string): boolean {
  return KNOWN_TYPES.has(type);
}

/**
 * Watches entries in file order for what makes a tree obviously healthy, so the full tree
 * validation (D3) can be skipped: known types, unique ids, every parentId null or an id seen
 * earlier (how the agents write files, hence no cycle, no orphan and no parentId of another kind).
 */
export class TreeOrderCheck {
  private readonly seen = new Set<string>();
  private last: string | null = null;
  private ok = true;

  get healthy(): boolean {
    return this.ok;
  }

  /**
   * `parentId` as the entry has it: a number, an object or none at all makes the tree unhealthy;
   * so does a message whose `role` (as its row has it) is none of the agent's.
   */
  add(id: string | null, parentId: unknown, type: string, role: string | null): void {
    if (!this.ok) return;
    const { seen } = this;
    const size = seen.size;
    // One Set operation per entry in the common case: a new id whose parent is the entry before.
    const healthy =
      id !== null &&
      KNOWN_TYPES.has(type) &&
      (type !== "message" || isKnownMessageRole(role)) &&
      (parentId === null ||
        (typeof parentId === "string" && (parentId === this.last || seen.has(parentId)))) &&
      seen.add(id).size > size;
    if (!healthy) {
      this.ok = false;
      seen.clear();
      return;
    }
    this.last = id;
  }
}
