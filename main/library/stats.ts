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
  countMalformed,
  type EntryShape,
  entryJson,
  entryJsonByPk,
  listEntryShapes,
  type NewEntryRow,
} from "../store/repos/entries.ts";
import { type SessionPatch, sessionLineMarks, updateSession } from "../store/repos/sessions.ts";
import { type ContentFacts, firstMessageTextOf, TreeOrderCheck, trimmedString } from "./entry-facts.ts";
import { fileLineAt, type LineMarks, parseLineMarks } from "./file-lines.ts";

type Loose = { [key: string]: unknown };

/** SPEC §10.3: text blocks of the first user message joined with a space. */
export function firstMessageText(json: string | null): string {
  return firstMessageTextOf(json === null ? null : (JSON.parse(json) as Loose));
}

/**
 * The parentIds that the parent_id column cannot hold (it keeps a string or nothing): by shape
 * index, what the entries stored without a parent have there when it is not null — a number, an
 * object, undefined for none. Roots are few, so only their JSON is read.
 */
export type OddParentIds = ReadonlyMap<number, unknown>;
const NO_ODD_PARENTS: OddParentIds = new Map();
const utf8 = new TextDecoder();

/** The parentId an entry's stored JSON has (undefined when it has none). */
function parentIdInJson(json: string | Uint8Array): unknown {
  const entry = JSON.parse(typeof json === "string" ? json : utf8.decode(json)) as Loose | null;
  return entry?.parentId;
}

/** The OddParentIds of a stored session: the JSON of its rows without a parent, read by pk. */
function oddParentIds(db: Database, shapes: readonly EntryShape[]): OddParentIds {
  const roots: number[] = [];
  for (let i = 0; i < shapes.length; i++) if ((shapes[i] as EntryShape)[3] === null) roots.push(i);
  if (roots.length === 0) return NO_ODD_PARENTS;
  const texts = entryJsonByPk(
    db,
    roots.map((i) => (shapes[i] as EntryShape)[0]),
  );
  const odd = new Map<number, unknown>();
  roots.forEach((i, at) => {
    const parentId = parentIdInJson(texts[at] as string);
    if (parentId !== null) odd.set(i, parentId);
  });
  return odd;
}

/**
 * True when buildTreeIndex can have nothing to report: known types, unique ids, and every
 * parent already seen earlier in line order (how agents write files), hence no cycle or orphan.
 */
function obviouslyHealthy(shapes: readonly EntryShape[]): boolean {
  const check = new TreeOrderCheck();
  for (const [, , id, parentId, type, role] of shapes) {
    check.add(id, parentId, type, role);
    if (!check.healthy) return false;
  }
  return true;
}

/**
 * Tree problems (D3) from the structural columns, with the parentIds those cannot hold; lines
 * are the file's for its rows (`marks`: sessions.line_marks), the stored seq for Canopy's.
 */
export function treeProblems(
  shapes: readonly EntryShape[],
  oddParents: OddParentIds = NO_ODD_PARENTS,
  marks: LineMarks = [],
): SessionProblem[] {
  if (oddParents.size === 0 && obviouslyHealthy(shapes)) return [];
  const stubs: SessionEntry[] = new Array(shapes.length);
  const lines: number[] = new Array(shapes.length);
  for (let i = 0; i < shapes.length; i++) {
    const [, seq, id, parentId, type, role, , origin] = shapes[i] as EntryShape;
    const stub: Loose = { type, parentId: oddParents.has(i) ? oddParents.get(i) : parentId, timestamp: "" };
    if (id !== null) stub.id = id;
    // The role as its row has it (a string or nothing): what unknownRoleReason reads.
    if (type === "message") stub.message = role === null ? {} : { role };
    stubs[i] = stub as SessionEntry;
    lines[i] = origin === "file" ? fileLineAt(marks, seq) : seq;
  }
  return [...buildTreeIndex(stubs, { lines }).problems];
}

/** The latest non-empty string `key` among entries of `type` (newest first), trimmed. */
function latestString(db: Database, shapes: readonly EntryShape[], type: string, key: string): string | null {
  for (let i = shapes.length - 1; i >= 0; i--) {
    const [pk, , , , t] = shapes[i] as EntryShape;
    if (t !== type) continue;
    const json = entryJson(db, pk);
    const value = json === null ? null : trimmedString(JSON.parse(json) as Loose, key);
    if (value !== null) return value;
  }
  return null;
}

export type StatsPatch = Required<
  Pick<
    SessionPatch,
    | "entry_count"
    | "message_count"
    | "compaction_count"
    | "branch_summary_count"
    | "malformed_count"
    | "problem_count"
    | "problems_json"
    | "first_message"
    | "display_name"
    | "compaction_title"
    | "file_leaf_id"
    | "last_leaf_id"
  >
>;

export interface SessionStats {
  patch: StatsPatch;
  problems: SessionProblem[];
}

/** The figures that follow from the structural columns alone (shapes in seq order). */
function shapeStats(
  shapes: readonly EntryShape[],
  malformedCount: number,
  texts: { firstMessage: string; displayName: string | null; compactionTitle: string | null },
  /** The rows were already seen in order by a TreeOrderCheck that found them healthy. */
  knownHealthy: boolean,
  oddParents: OddParentIds,
  marks: LineMarks = [],
): SessionStats {
  let messageCount = 0;
  let compactionCount = 0;
  let branchSummaryCount = 0;
  let fileLeaf: string | null = null;
  for (const [, , id, , type, , , origin] of shapes) {
    if (type === "message") messageCount++;
    else if (type === "compaction") compactionCount++;
    else if (type === "branch_summary") branchSummaryCount++;
    if (origin === "file") fileLeaf = id;
  }
  const problems = knownHealthy && oddParents.size === 0 ? [] : treeProblems(shapes, oddParents, marks);
  return {
    patch: {
      entry_count: shapes.length,
      message_count: messageCount,
      compaction_count: compactionCount,
      branch_summary_count: branchSummaryCount,
      malformed_count: malformedCount,
      problem_count: problems.length,
      problems_json: JSON.stringify(problems),
      first_message: texts.firstMessage,
      display_name: texts.displayName,
      compaction_title: texts.compactionTitle,
      file_leaf_id: fileLeaf,
      last_leaf_id: shapes.at(-1)?.[2] ?? null,
    },
    problems,
  };
}

/** Recomputes the cached figures from one scan of the stored structural columns. */
export function computeSessionStats(db: Database, sid: number): SessionStats {
  const shapes = listEntryShapes(db, sid);
  const firstUser = shapes.find(([, , , , type, role]) => type === "message" && role === "user");
  return shapeStats(
    shapes,
    countMalformed(db, sid),
    {
      firstMessage: firstMessageText(firstUser === undefined ? null : entryJson(db, firstUser[0])),
      displayName: latestString(db, shapes, "session_info", "name"),
      compactionTitle: latestString(db, shapes, "compaction", "shortSummary"),
    },
    false,
    oddParentIds(db, shapes),
    parseLineMarks(sessionLineMarks(db, sid)),
  );
}

/** Recomputes and stores the cached figures from one scan of the structural columns. */
export function refreshSessionStats(db: Database, session: { sid: number; id: string }): SessionProblem[] {
  const { patch, problems } = computeSessionStats(db, session.sid);
  updateSession(db, session.id, patch);
  return problems;
}

/**
 * The same figures for a session being created, gathered while its rows are inserted, so a
 * new import does not read back what it just wrote. Rows must be added in seq order and be
 * all the session has; what their content says comes as ContentFacts.
 */
export class SessionStatsCollector {
  private readonly shapes: EntryShape[] = [];
  private readonly oddParents = new Map<number, unknown>();

  add(pk: number, row: NewEntryRow): void {
    if (row.parentId === null) {
      const parentId = parentIdInJson(row.json);
      if (parentId !== null) this.oddParents.set(this.shapes.length, parentId);
    }
    this.shapes.push([pk, row.seq, row.id, row.parentId, row.type, row.role, row.model, row.origin]);
  }

  /** `treeInOrder`: the rows were seen in order by the parser's TreeOrderCheck, which found them healthy. */
  finish(malformedCount: number, facts: ContentFacts, treeInOrder = false): SessionStats {
    return shapeStats(
      this.shapes,
      malformedCount,
      {
        firstMessage: facts.firstMessage ?? firstMessageTextOf(null),
        displayName: facts.displayName,
        compactionTitle: facts.compactionTitle,
      },
      treeInOrder,
      this.oddParents,
    );
  }
}
