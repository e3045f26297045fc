/**
 * The abandoned entries a branch summary reads (SPEC §8.2), without parsing the whole branch:
 * the newest entries up to where the token budget stops prepareBranchEntries' walk, plus the
 * older branch summaries whose file lists it seeds. Given to generateBranchSummary in place of
 * the whole branch, they give the same messages and files. Also whether it reads any message.
 */
import { givesBranchMessage, prepareBranchEntries } from "../../core/compaction/branch.ts";
import type { SessionEntry } from "../../core/session/entries.ts";
import type { Database } from "../store/open.ts";
import { entryJsonByPk } from "../store/repos/entries.ts";

/** The first stretch read (newest entries), grown ×4 until the walk stops inside it. */
const FIRST_STRETCH = 64;

/**
 * @param abandoned the branch's entries oldest first, as stubs (type and id are enough)
 * @param pkOf the library row of each stub
 */
export function loadBranchWindow(
  db: Database,
  abandoned: readonly SessionEntry[],
  pkOf: ReadonlyMap<SessionEntry, number>,
  tokenBudget: number,
): SessionEntry[] {
  const parse = (stubs: readonly SessionEntry[]): SessionEntry[] =>
    entryJsonByPk(
      db,
      stubs.map((stub) => pkOf.get(stub) as number),
    ).map((json) => JSON.parse(json) as SessionEntry);
  if (tokenBudget <= 0) return parse(abandoned);
  let from = abandoned.length;
  let suffix: SessionEntry[] = [];
  for (let size = FIRST_STRETCH; from > 0; size *= 4) {
    const next = Math.max(0, abandoned.length - size);
    suffix = [...parse(abandoned.slice(next, from)), ...suffix];
    from = next;
    if (prepareBranchEntries(suffix, tokenBudget).stoppedAt !== null) break;
  }
  if (from === 0) return suffix;
  // The walk stops inside `suffix`: above it only branch summaries are read (their files).
  return [...parse(abandoned.slice(0, from).filter((stub) => stub.type === "branch_summary")), ...suffix];
}

/**
 * Whether any abandoned entry gives a branch summary a message (core's rule on the stored
 * entries), parsing newest first in growing stretches and stopping at the first that does.
 */
export function branchGivesMessage(
  db: Database,
  abandoned: readonly SessionEntry[],
  pkOf: ReadonlyMap<SessionEntry, number>,
): boolean {
  let from = abandoned.length;
  for (let size = 1; from > 0; size *= 4) {
    const next = Math.max(0, from - size);
    const pks = abandoned.slice(next, from).map((stub) => pkOf.get(stub) as number);
    if (entryJsonByPk(db, pks).some((json) => givesBranchMessage(JSON.parse(json) as SessionEntry))) return true;
    from = next;
  }
  return false;
}
