/**
 * Cached per-session figures for the library list (counts, first message, titles, leaves,
 * tree problems). Recomputed from the stored rows after every write to a session, so the list
 * never has to touch entry JSON.
 */
import type { SessionProblem } from "../../core/api/dto.ts";
import type { SessionEntry } from "../../core/session/entries.ts";
import { buildTreeIndex } from "../../core/session/tree.ts";
import type { Database } from "../store/open.ts";
import {
  countEntriesByType,
  countMalformed,
  entryJsonOfType,
  firstEntryJson,
  lastEntryId,
  listEntryShapes,
} from "../store/repos/entries.ts";
import { updateSession } from "../store/repos/sessions.ts";

type Loose = { [key: string]: unknown };

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

/** Tree problems (D3) from the structural columns only; lines are the stored seq. */
export function treeProblems(db: Database, sessionId: string): SessionProblem[] {
  const shapes = listEntryShapes(db, sessionId);
  const stubs: SessionEntry[] = new Array(shapes.length);
  const lines: number[] = new Array(shapes.length);
  for (let i = 0; i < shapes.length; i++) {
    const [, seq, id, parentId, type] = shapes[i] as (typeof shapes)[number];
    const stub: Loose = { type, parentId, timestamp: "" };
    if (id !== null) stub.id = id;
    stubs[i] = stub as SessionEntry;
    lines[i] = seq;
  }
  return [...buildTreeIndex(stubs, { lines }).problems];
}

function latestString(jsons: string[], key: string): string | null {
  for (const json of jsons) {
    const value = (JSON.parse(json) as Loose)[key];
    if (typeof value === "string" && value.trim() !== "") return value.trim();
  }
  return null;
}

/** Recomputes and stores the cached figures; returns the tree problems found. */
export function refreshSessionStats(db: Database, sessionId: string): SessionProblem[] {
  let entryCount = 0;
  let messageCount = 0;
  let compactionCount = 0;
  let branchSummaryCount = 0;
  for (const { type, n } of countEntriesByType(db, sessionId)) {
    entryCount += n;
    if (type === "message") messageCount += n;
    else if (type === "compaction") compactionCount += n;
    else if (type === "branch_summary") branchSummaryCount += n;
  }
  const problems = treeProblems(db, sessionId);
  updateSession(db, sessionId, {
    entry_count: entryCount,
    message_count: messageCount,
    compaction_count: compactionCount,
    branch_summary_count: branchSummaryCount,
    malformed_count: countMalformed(db, sessionId),
    problem_count: problems.length,
    problems_json: JSON.stringify(problems),
    first_message: firstMessageText(firstEntryJson(db, sessionId, "message", "user")),
    display_name: latestString(entryJsonOfType(db, sessionId, "session_info", true), "name"),
    compaction_title: latestString(entryJsonOfType(db, sessionId, "compaction", true), "shortSummary"),
    file_leaf_id: lastEntryId(db, sessionId, "file"),
    last_leaf_id: lastEntryId(db, sessionId),
  });
  return problems;
}
