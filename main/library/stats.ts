/**
 * Cached per-session figures for the library list (counts, first message, titles, leaves,
 * tree problems). Recomputed from the stored rows after every write to a session, so the list
 * never has to touch entry JSON.
 */
import type { SessionProblem } from "../../core/api/dto.ts";
import { KNOWN_ENTRY_TYPES, type SessionEntry } from "../../core/session/entries.ts";
import { buildTreeIndex } from "../../core/session/tree.ts";
import type { Database } from "../store/open.ts";
import { countMalformed, type EntryShape, entryJson, listEntryShapes } from "../store/repos/entries.ts";
import { updateSession } from "../store/repos/sessions.ts";

type Loose = { [key: string]: unknown };

const KNOWN_TYPES = new Set<string>(KNOWN_ENTRY_TYPES);

/** SPEC §10.3: text blocks of the first user message joined with a space. */
export function firstMessageText(json: string | null): string {
  if (json === null) return "(no messages)";
  const entry = JSON.parse(json) as Loose;
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

/**
 * True when buildTreeIndex can have nothing to report: known types, unique ids, and every
 * parent already seen earlier in line order (how agents write files), hence no cycle or orphan.
 */
function obviouslyHealthy(shapes: readonly EntryShape[]): boolean {
  const seen = new Set<string>();
  for (const [, , id, parentId, type] of shapes) {
    if (id === null || seen.has(id) || !KNOWN_TYPES.has(type)) return false;
    if (parentId !== null && !seen.has(parentId)) return false;
    seen.add(id);
  }
  return true;
}

/** Tree problems (D3) from the structural columns only; lines are the stored seq. */
export function treeProblems(shapes: readonly EntryShape[]): SessionProblem[] {
  if (obviouslyHealthy(shapes)) return [];
  const stubs: SessionEntry[] = new Array(shapes.length);
  const lines: number[] = new Array(shapes.length);
  for (let i = 0; i < shapes.length; i++) {
    const [, seq, id, parentId, type] = shapes[i] as EntryShape;
    const stub: Loose = { type, parentId, timestamp: "" };
    if (id !== null) stub.id = id;
    stubs[i] = stub as SessionEntry;
    lines[i] = seq;
  }
  return [...buildTreeIndex(stubs, { lines }).problems];
}

/** The latest non-empty string `key` among entries of `type` (newest first), trimmed. */
function latestString(db: Database, shapes: readonly EntryShape[], type: string, key: string): string | null {
  for (let i = shapes.length - 1; i >= 0; i--) {
    const [pk, , , , t] = shapes[i] as EntryShape;
    if (t !== type) continue;
    const json = entryJson(db, pk);
    const value = json === null ? undefined : (JSON.parse(json) as Loose)[key];
    if (typeof value === "string" && value.trim() !== "") return value.trim();
  }
  return null;
}

/** Recomputes and stores the cached figures from one scan of the structural columns. */
export function refreshSessionStats(db: Database, session: { sid: number; id: string }): SessionProblem[] {
  const shapes = listEntryShapes(db, session.sid);
  let messageCount = 0;
  let compactionCount = 0;
  let branchSummaryCount = 0;
  let firstUserPk: number | null = null;
  let fileLeaf: string | null = null;
  for (const [pk, , id, , type, role, , origin] of shapes) {
    if (type === "message") {
      messageCount++;
      if (firstUserPk === null && role === "user") firstUserPk = pk;
    } else if (type === "compaction") compactionCount++;
    else if (type === "branch_summary") branchSummaryCount++;
    if (origin === "file") fileLeaf = id;
  }
  const problems = treeProblems(shapes);
  updateSession(db, session.id, {
    entry_count: shapes.length,
    message_count: messageCount,
    compaction_count: compactionCount,
    branch_summary_count: branchSummaryCount,
    malformed_count: countMalformed(db, session.sid),
    problem_count: problems.length,
    problems_json: JSON.stringify(problems),
    first_message: firstMessageText(firstUserPk === null ? null : entryJson(db, firstUserPk)),
    display_name: latestString(db, shapes, "session_info", "name"),
    compaction_title: latestString(db, shapes, "compaction", "shortSummary"),
    file_leaf_id: fileLeaf,
    last_leaf_id: shapes.at(-1)?.[2] ?? null,
  });
  return problems;
}
