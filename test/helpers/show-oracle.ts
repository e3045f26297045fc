/**
 * `canopy show` as it was before it streamed from the structural read (1eee036): the whole
 * session detail (every entry parsed) rendered into one string. The tests hold the new output
 * to it byte for byte; the show bench runs it as its baseline.
 */
import type { SessionDetail, SessionProblem } from "../../core/api/dto.ts";
import { counted, entryKind, entryText, flatten } from "../../core/session/describe.ts";
import type { SessionEntry, SessionHeader } from "../../core/session/entries.ts";
import { problemText } from "../../core/session/problems.ts";
import { ancestorTest, buildTreeIndex } from "../../core/session/tree.ts";
import { usageParts, usageTotals } from "../../core/session/usage-totals.ts";
import { ARCHIVED_LEGEND } from "../../main/cli/render-tree.ts";
import { archivedEntryIds } from "../../main/library/edits.ts";
import { fileProblems } from "../../main/library/import-state.ts";
import {
  editHistory,
  loadMalformedLines,
  requireSession,
  toSessionSummary,
} from "../../main/library/load.ts";
import type { Database } from "../../main/store/open.ts";
import { archivedRoots } from "../../main/store/repos/edits.ts";
import { listEntryRows } from "../../main/store/repos/entries.ts";

/** The usage line (SPEC §2.1) over the parsed entries, none when no reply carried usage. */
function usageLine(entries: readonly SessionEntry[]): string[] {
  const parts = usageParts(usageTotals(entries), (tokens) => tokens.toLocaleString("en-US"));
  return parts.length === 0 ? [] : [`usage (all branches, as the agent recorded it): ${parts.join(" · ")}`];
}

/** The session detail as `session:get` built it: every entry parsed, labels from all of them. */
export function oldSessionDetail(db: Database, sessionId: string): SessionDetail {
  const row = requireSession(db, sessionId);
  const entries = listEntryRows(db, row.sid).map((r) => ({
    entry: JSON.parse(r.json) as SessionEntry,
    line: r.seq,
    tokens: r.tokens,
  }));
  const labels = new Map<string, string>();
  for (const { entry } of entries) {
    if (entry.type !== "label") continue;
    const target: unknown = entry.targetId;
    const label: unknown = entry.label;
    if (typeof target !== "string") continue;
    if (typeof label === "string" && label !== "") labels.set(target, label);
    else labels.delete(target);
  }
  return {
    summary: toSessionSummary(row),
    header: JSON.parse(row.header_json) as SessionHeader,
    entries,
    malformed: loadMalformedLines(db, sessionId),
    problems: JSON.parse(row.problems_json) as SessionProblem[],
    labels: Object.fromEntries(labels),
    history: editHistory(db, row.sid),
  };
}

/** The text `canopy show` printed (without the final newline `out` adds). */
export function oldShowText(db: Database, sessionId: string): string {
  const roots = archivedRoots(db, requireSession(db, sessionId).sid);
  return oldRenderTree(oldSessionDetail(db, sessionId), { ids: archivedEntryIds(db, sessionId), roots });
}

/** Why a compaction keeps nothing from before it (SPEC §3.1), or "" when its first kept entry is on its path. */
function keptNowhere(firstKept: unknown, exists: boolean, onPath: boolean): string {
  if (typeof firstKept !== "string" || onPath) return "";
  return exists ? " (not on its path: keeps nothing before it)" : " (no such entry: keeps nothing before it)";
}

function compactionNote(entry: SessionEntry, exists: boolean, onPath: boolean): string {
  const e = entry as SessionEntry & { tokensBefore?: unknown; firstKeptEntryId?: unknown };
  const firstKept = `${String(e.firstKeptEntryId ?? "(none)")}${keptNowhere(e.firstKeptEntryId, exists, onPath)}`;
  return ` [compaction: tokensBefore ${String(e.tokensBefore ?? "?")}, first kept ${firstKept}]`;
}

/** Nesting shown by indentation; deeper branches say their depth instead of indenting further. */
const MAX_INDENT_LEVELS = 24;

function indentFor(depth: number): string {
  const levels = Math.max(0, depth - 1);
  if (levels <= MAX_INDENT_LEVELS) return "  ".repeat(levels);
  return `${"  ".repeat(MAX_INDENT_LEVELS - 3)}[${depth}] `.padEnd(MAX_INDENT_LEVELS * 2);
}

/** Since then, archived branches are marked (`~`, `[archived]` at their start, a legend clause). */
export function oldRenderTree(
  detail: SessionDetail,
  archived: { ids: ReadonlySet<string>; roots: ReadonlySet<string> } = { ids: new Set(), roots: new Set() },
): string {
  const entries = detail.entries.map((stored) => stored.entry);
  const index = buildTreeIndex(entries, { lines: detail.entries.map((stored) => stored.line) });
  const viewLeaf = detail.summary.viewLeafId;
  const onActivePath = new Set(viewLeaf ? index.pathTo(viewLeaf).map((entry) => entry.id) : []);
  // A first kept entry is marked only where the model really gets it: above its compaction.
  const isAncestor = ancestorTest(index);
  const keptBy = new Map<string, string[]>();
  const keepsFromPath = new Set<string>();
  for (const entry of index.byId.values()) {
    const firstKept = (entry as { firstKeptEntryId?: unknown }).firstKeptEntryId;
    if (entry.type === "compaction" && typeof firstKept === "string" && isAncestor(firstKept, entry.id)) {
      keptBy.set(firstKept, [...(keptBy.get(firstKept) ?? []), entry.id]);
      keepsFromPath.add(entry.id);
    }
  }
  const activeFirst = (list: readonly SessionEntry[]) =>
    [...list].sort((a, b) => Number(onActivePath.has(b.id)) - Number(onActivePath.has(a.id)));

  const { summary } = detail;
  const lines = [
    `${summary.id}  ${summary.title ?? flatten(summary.firstMessage, 60)}`,
    `cwd ${summary.cwd} · ${counted(summary.entryCount, "entry", "entries")} · ${counted(summary.compactionCount, "compaction")} · ` +
      `view leaf ${viewLeaf ?? "(none)"} · file leaf ${summary.fileLeafId ?? "(none)"}`,
    ...usageLine(detail.entries.map((stored) => stored.entry)),
    `legend: * view leaf, > on the path to it, [first kept by C] where compaction C starts keeping entries${archived.ids.size > 0 ? ARCHIVED_LEGEND : ""}`,
    "",
  ];
  const stack: { entry: SessionEntry; depth: number; branchStart: boolean }[] = activeFirst(index.roots)
    .reverse()
    .map((entry) => ({ entry, depth: index.roots.length > 1 ? 1 : 0, branchStart: index.roots.length > 1 }));
  while (stack.length > 0) {
    const item = stack.pop();
    if (!item) break;
    const { entry, depth } = item;
    const mark =
      entry.id === viewLeaf ? "*" : onActivePath.has(entry.id) ? ">" : archived.ids.has(entry.id) ? "~" : " ";
    const indent = indentFor(depth) + (depth > 0 ? (item.branchStart ? "├─" : "│ ") : "");
    const firstKept = (entry as { firstKeptEntryId?: unknown }).firstKeptEntryId;
    let note =
      entry.type === "compaction"
        ? compactionNote(
            entry,
            typeof firstKept === "string" && index.byId.has(firstKept),
            keepsFromPath.has(entry.id),
          )
        : "";
    if (archived.roots.has(entry.id)) note += " [archived]";
    const keepers = keptBy.get(entry.id);
    if (keepers) note += ` [first kept by ${keepers.join(", ")}]`;
    const label = index.labels.get(entry.id);
    if (label) note += ` [label: ${label}]`;
    const text = entry.type === "compaction" ? "" : ` ${flatten(entryText(entry), 80)}`;
    lines.push(`${mark} ${indent}${entry.id} ${entryKind(entry)}${note}${text}`.trimEnd());
    const children = activeFirst(index.childrenSorted(entry.id));
    const branching = children.length > 1;
    for (let i = children.length - 1; i >= 0; i--) {
      const child = children[i];
      if (child) stack.push({ entry: child, depth: branching ? depth + 1 : depth, branchStart: branching });
    }
  }
  const problems = fileProblems(detail.malformed, detail.problems);
  if (problems.length > 0) {
    lines.push("", `${counted(problems.length, "problem")}:`);
    for (const problem of problems.slice(0, 50)) lines.push(`  ! ${problemText(problem)}`);
    if (problems.length > 50) lines.push(`  ! … and ${problems.length - 50} more`);
  }
  return lines.join("\n");
}
