/**
 * `canopy show`: a session tree as text. Single-child chains stay flat, siblings are indented one
 * level (the branch holding the view leaf first; past 24 levels a branch says its depth instead,
 * so lines stay readable), the view leaf is starred, compactions show
 * tokensBefore and their first kept entry (or why they keep nothing before them), the first
 * kept entry itself is marked, and so are archived branches (hidden in the app).
 * Iterative, so a 100,000-deep session prints without recursion limits; lines are yielded one by
 * one from the session's outline (session-outline.ts), so the text is written as it is made.
 */
import { counted, flatten, oneLine } from "../../core/session/describe.ts";
import type { SessionEntry } from "../../core/session/entries.ts";
import { problemText } from "../../core/session/problems.ts";
import { ancestorTest } from "../../core/session/tree.ts";
import { usageParts } from "../../core/session/usage-totals.ts";
import type { SessionOutline } from "../library/session-outline.ts";
import { cutToColumns, textColumns, wrapToColumns } from "../../core/text/columns.ts";

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

/** Said in the legend of a session with archived branches. */
export const ARCHIVED_LEGEND =
  ", ~ in an archived branch and [archived] at its start (hidden in the app: Restore branch under Show archived shows it)";

/** Nesting shown by indentation; deeper branches say their depth instead of indenting further. */
const MAX_INDENT_LEVELS = 24;

function indentFor(depth: number): string {
  const levels = Math.max(0, depth - 1);
  if (levels <= MAX_INDENT_LEVELS) return "  ".repeat(levels);
  return `${"  ".repeat(MAX_INDENT_LEVELS - 3)}[${depth}] `.padEnd(MAX_INDENT_LEVELS * 2);
}

/**
 * An entry's line fitted to `columns`: its text cut to what is left of the line (down to "…", or
 * nothing on a line a deep branch's indentation fills); when the tree part itself (indentation,
 * id, kind, notes) is wider, that is wrapped, its continuation lines keeping the mark column
 * (`~` of an archived branch) and the branch's indentation.
 */
function fitEntryLine(mark: string, indent: string, head: string, text: string, columns: number): string[] {
  const start = `${mark} ${indent}`;
  const headColumns = textColumns(`${start}${head}`);
  if (headColumns <= columns) {
    const room = columns - headColumns - 1;
    return [`${start}${head}${text === "" || room < 1 ? "" : ` ${cutToColumns(text, room)}`}`];
  }
  const branch = indent.replace(/├─/g, "│ ").replace(/\[\d+\] /, (depth) => " ".repeat(depth.length));
  const lines = wrapToColumns(`${start}${head}`, columns, `${mark === "~" ? "~" : " "} ${branch}    `);
  const last = lines.length - 1;
  const room = columns - textColumns(lines[last] ?? "") - 1;
  if (text !== "" && room >= 1) lines[last] = `${lines[last]} ${cutToColumns(text, room)}`;
  return lines;
}

/** The lines of `canopy show`, in order (no line breaks); `columns`: fitted to a terminal that wide. */
export function* treeLines(outline: SessionOutline, columns?: number): Generator<string> {
  const { index, facts } = outline;
  const viewLeaf = outline.summary.viewLeafId;
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
  // Most entries have one child: nothing to sort.
  const activeFirst = (list: readonly SessionEntry[]) =>
    list.length < 2
      ? list
      : [...list].sort((a, b) => Number(onActivePath.has(b.id)) - Number(onActivePath.has(a.id)));

  const { summary } = outline;
  const { archived } = outline;
  const usage = usageParts(outline.usage, (tokens) => tokens.toLocaleString("en-US"));
  // Line breaks in the title (a compaction's short summary, SPEC §10.3) or cwd would split these lines.
  const header = [
    `${summary.id}  ${summary.title === null ? flatten(summary.firstMessage, 60) : oneLine(summary.title)}`,
    `cwd ${oneLine(summary.cwd)} · ${counted(summary.entryCount, "entry", "entries")} · ${counted(summary.compactionCount, "compaction")} · ` +
      `view leaf ${viewLeaf ?? "(none)"} · file leaf ${summary.fileLeafId ?? "(none)"}`,
    ...(usage.length > 0 ? [`usage (all branches, as the agent recorded it): ${usage.join(" · ")}`] : []),
    `legend: * view leaf, > on the path to it, [first kept by C] where compaction C starts keeping entries${archived.size > 0 ? ARCHIVED_LEGEND : ""}`,
  ];
  for (const line of header) yield* columns === undefined ? [line] : wrapToColumns(line, columns, "  ");
  yield "";
  const stack: { entry: SessionEntry; depth: number; branchStart: boolean }[] = [...activeFirst(index.roots)]
    .reverse()
    .map((entry) => ({ entry, depth: index.roots.length > 1 ? 1 : 0, branchStart: index.roots.length > 1 }));
  while (stack.length > 0) {
    const item = stack.pop();
    if (!item) break;
    const { entry, depth } = item;
    const mark =
      entry.id === viewLeaf ? "*" : onActivePath.has(entry.id) ? ">" : archived.has(entry.id) ? "~" : " ";
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
    if (outline.archivedRoots.has(entry.id)) note += " [archived]";
    const keepers = keptBy.get(entry.id);
    if (keepers) note += ` [first kept by ${keepers.join(", ")}]`;
    const label = index.labels.get(entry.id);
    if (label) note += ` [label: ${label}]`;
    const shown = facts.get(entry);
    if (columns === undefined) {
      const text = entry.type === "compaction" ? "" : ` ${shown?.text ?? ""}`;
      yield `${mark} ${indent}${entry.id} ${shown?.kind ?? entry.type}${note}${text}`.trimEnd();
    } else {
      // The text as the 80-character cut shows it, with more of it on a wider terminal.
      const text = entry.type === "compaction" ? "" : (shown?.text ?? "");
      yield* fitEntryLine(mark, indent, `${entry.id} ${shown?.kind ?? entry.type}${note}`, text, columns);
    }
    const children = activeFirst(index.childrenSorted(entry.id));
    const branching = children.length > 1;
    for (let i = children.length - 1; i >= 0; i--) {
      const child = children[i];
      if (child) stack.push({ entry: child, depth: branching ? depth + 1 : depth, branchStart: branching });
    }
  }
  const { problems } = outline;
  if (problems.length > 0) {
    yield "";
    yield `${counted(problems.length, "problem")}:`;
    for (const problem of problems.slice(0, 50)) {
      const line = `  ! ${problemText(problem)}`;
      yield* columns === undefined ? [line] : wrapToColumns(line, columns, "    ");
    }
    if (problems.length > 50) yield `  ! … and ${problems.length - 50} more`;
  }
}

/** The whole text of `canopy show` (no final line break). */
export function renderTree(outline: SessionOutline): string {
  return [...treeLines(outline)].join("\n");
}
