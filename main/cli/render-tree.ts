/**
 * `canopy show`: a session tree as text. Single-child chains stay flat, siblings are indented one
 * level (the branch holding the view leaf first; past 24 levels a branch says its depth instead,
 * so lines stay readable), the view leaf is starred, compactions show
 * tokensBefore and their first kept entry, and the first kept entry itself is marked.
 * Iterative, so a 100,000-deep session prints without recursion limits.
 */
import type { SessionDetail } from "../../core/api/dto.ts";
import { counted, entryKind, entryText, flatten } from "../../core/session/describe.ts";
import type { SessionEntry } from "../../core/session/entries.ts";
import { problemText } from "../../core/session/problems.ts";
import { buildTreeIndex } from "../../core/session/tree.ts";
import { fileProblems } from "../library/import-state.ts";

function compactionNote(entry: SessionEntry): string {
  const e = entry as SessionEntry & { tokensBefore?: unknown; firstKeptEntryId?: unknown };
  return ` [compaction: tokensBefore ${String(e.tokensBefore ?? "?")}, first kept ${String(e.firstKeptEntryId ?? "(none)")}]`;
}

/** Nesting shown by indentation; deeper branches say their depth instead of indenting further. */
const MAX_INDENT_LEVELS = 24;

function indentFor(depth: number): string {
  const levels = Math.max(0, depth - 1);
  if (levels <= MAX_INDENT_LEVELS) return "  ".repeat(levels);
  return `${"  ".repeat(MAX_INDENT_LEVELS - 3)}[${depth}] `.padEnd(MAX_INDENT_LEVELS * 2);
}

export function renderTree(detail: SessionDetail): string {
  const entries = detail.entries.map((stored) => stored.entry);
  const index = buildTreeIndex(entries, { lines: detail.entries.map((stored) => stored.line) });
  const viewLeaf = detail.summary.viewLeafId;
  const onActivePath = new Set(viewLeaf ? index.pathTo(viewLeaf).map((entry) => entry.id) : []);
  const keptBy = new Map<string, string[]>();
  for (const entry of entries) {
    const firstKept = (entry as { firstKeptEntryId?: unknown }).firstKeptEntryId;
    if (entry.type === "compaction" && typeof firstKept === "string") {
      keptBy.set(firstKept, [...(keptBy.get(firstKept) ?? []), entry.id]);
    }
  }
  const activeFirst = (list: readonly SessionEntry[]) =>
    [...list].sort((a, b) => Number(onActivePath.has(b.id)) - Number(onActivePath.has(a.id)));

  const { summary } = detail;
  const lines = [
    `${summary.id}  ${summary.title ?? flatten(summary.firstMessage, 60)}`,
    `cwd ${summary.cwd} · ${counted(summary.entryCount, "entry", "entries")} · ${counted(summary.compactionCount, "compaction")} · ` +
      `view leaf ${viewLeaf ?? "(none)"} · file leaf ${summary.fileLeafId ?? "(none)"}`,
    "legend: * view leaf, > on the path to it, [first kept by C] where compaction C starts keeping entries",
    "",
  ];
  const stack: { entry: SessionEntry; depth: number; branchStart: boolean }[] = activeFirst(index.roots)
    .reverse()
    .map((entry) => ({ entry, depth: index.roots.length > 1 ? 1 : 0, branchStart: index.roots.length > 1 }));
  while (stack.length > 0) {
    const item = stack.pop();
    if (!item) break;
    const { entry, depth } = item;
    const mark = entry.id === viewLeaf ? "*" : onActivePath.has(entry.id) ? ">" : " ";
    const indent = indentFor(depth) + (depth > 0 ? (item.branchStart ? "├─" : "│ ") : "");
    let note = entry.type === "compaction" ? compactionNote(entry) : "";
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
