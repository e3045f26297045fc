/**
 * Text output of the CLI commands other than `show`: import reports, the session list,
 * the LLM view and search hits.
 */
import type { ContextView, ImportReport, SearchHit, SessionSummary } from "../../core/api/dto.ts";
import type { RequestChange } from "../../core/session/request-messages.ts";
import { counted, flatten as truncate, oneLine } from "../../core/session/describe.ts";
import { messageFailure, messageHeading, messageText } from "../../core/session/message-text.ts";
import {
  NO_MODEL_ON_PATH,
  NO_THINKING_ON_PATH,
  type PathSettingsSource,
  pathSettings,
} from "../../core/session/path-settings.ts";
import {
  addedResultText,
  requestChangeText,
  requestTargetText,
  requestUnchanged,
} from "../../core/session/request-notes.ts";
import { inFileOrder, problemText } from "../../core/session/problems.ts";
import { cutToColumns, fitFields, fitText } from "../../core/text/columns.ts";
import {
  groupRequestNotes,
  messageNumbers,
  requestGroupText,
  requestNoteFlag,
  requestNoteKey,
} from "../../core/session/request-note-groups.ts";

/** Unchanged files listed one by one up to this many; more are counted on one line. */
const MAX_UNCHANGED_LINES = 20;

/** `columns`: the terminal's width, lines are wrapped to it (none: as they are). */
export function renderImportReport(report: ImportReport, columns?: number): string {
  if (report.files.length === 0) {
    return report.cancelled
      ? "Cancelled before any file was read: nothing imported."
      : "No session files (*.jsonl) there: nothing imported.";
  }
  const lines = [
    `${counted(report.files.length, "file")}: ${report.imported} imported, ${report.updated} updated, ` +
      `${report.unchanged} unchanged, ${report.skipped} skipped, ${report.failed} failed; ` +
      `${counted(report.entriesAdded, "entry", "entries")} added (${(report.bytesRead / 1e6).toFixed(1)} MB in ${Math.round(report.durationMs)} ms)`,
  ];
  // Re-importing a sessions folder finds most files unchanged: past a few, they are one line,
  // so the files that did change stay in sight (--json lists every file).
  const quiet = (file: ImportReport["files"][number]) => file.status === "unchanged" && file.problems.length === 0;
  const unchanged = report.files.filter(quiet);
  const foldUnchanged = unchanged.length > MAX_UNCHANGED_LINES;
  for (const file of report.files) {
    if (foldUnchanged && quiet(file)) continue;
    const id = file.sessionId ? ` ${file.sessionId}` : "";
    const reason = file.reason ? ` — ${file.reason}` : "";
    lines.push(`  ${file.status.padEnd(9)}${id} ${file.path}${reason}`);
    for (const problem of inFileOrder(file.problems).slice(0, 20)) lines.push(`      ! ${problemText(problem)}`);
    if (file.problems.length > 20) lines.push(`      ! … and ${counted(file.problems.length - 20, "more problem")}`);
  }
  if (foldUnchanged) lines.push(`  unchanged ${counted(unchanged.length, "file")} (--json lists them)`);
  if (report.cancelled) lines.push("Cancelled: the files after these were not read.");
  // Continued lines of a file or problem line indented (a path goes on whole if it can).
  const hangOf = (line: string, i: number) =>
    i === 0 ? "  " : line.startsWith("      !") ? "        " : "    ";
  return lines.map((line, i) => fitText(line, columns, hangOf(line, i))).join("\n");
}

/** `deleted`: the list is of the deleted sessions (`list --deleted`). */
export function renderSessionList(sessions: SessionSummary[], deleted = false, columns?: number): string {
  if (sessions.length === 0) {
    return deleted
      ? "No deleted sessions."
      : "The library is empty. Import sessions with `canopy import <file|dir>`.";
  }
  return sessions
    .map((session) => {
      const name = truncate(session.title ?? session.firstMessage, 60);
      const figures = `${counted(session.entryCount, "entry", "entries")}, ${counted(session.compactionCount, "compaction")}`;
      const fields = [session.id, session.modified.slice(0, 19).replace("T", " "), figures, oneLine(session.cwd)];
      return `${fitFields(fields, columns)}\n    ${columns === undefined ? name : cutToColumns(name, columns - 4)}`;
    })
    .join("\n");
}

/** The model and thinking level in effect at the leaf, on one line; omp's other model roles follow. */
export function settingsLine(view: PathSettingsSource): string {
  const { model, thinking, roles } = pathSettings(view);
  const parts = [
    model === null ? `model: ${NO_MODEL_ON_PATH}` : `model ${oneLine(model)}`,
    thinking === null ? `thinking: ${NO_THINKING_ON_PATH}` : `thinking ${oneLine(thinking)}`,
  ];
  if (roles.length > 0) parts.push(`roles: ${roles.map(([role, name]) => `${oneLine(role)} ${oneLine(name)}`).join(", ")}`);
  return parts.join(" · ");
}

/**
 * The LLM view as text, with what the request does to it (SPEC §3.6): a message the request drops
 * is marked `[not sent]` with the reason, a tool result only the request has is shown in place as
 * `[+]`, and other changes follow the message's heading as `request:` lines. A kind of note on
 * many messages is said once in the header with their numbers; each keeps a short `[mark]`.
 */
export function renderContext(view: ContextView, columns?: number): string {
  const { request } = view;
  // On a terminal (`columns`), Canopy's own lines are wrapped to it; the messages' text is not.
  const fitted = (line: string, hang: string) => fitText(line, columns, hang);
  const header = [
    `leaf ${view.leafId ?? "(none)"} · ${counted(view.messages.length, "message")} · ~${view.estimatedTokens} tokens estimated` +
      (view.measuredTokens === null ? "" : ` · ${view.measuredTokens} measured`) +
      (view.measuredBeforeCompaction ? " (before the compaction in effect: stale until the next reply)" : ""),
  ];
  header.push(settingsLine(view));
  if (view.compactionId) {
    header.push(
      `compaction ${view.compactionId} · first kept ${view.firstKeptEntryId ?? "(not on this path)"}`,
    );
  }
  header.push(`${requestTargetText(request.target)} It carries ${counted(request.messageCount, "message")}.`);
  const groups = groupRequestNotes(request.changes);
  const grouped = new Set(groups.map((group) => group.key));
  if (!requestUnchanged(request.changes, request.added)) {
    header.push(
      "Marks: [+] added by the request · [not sent] left out by the request · request: what else it changes" +
        (groups.length > 0 ? " (said once here when many messages share it; they carry a short [mark])." : "."),
    );
  }
  for (const group of groups) {
    header.push(`request: ${requestGroupText(group)} Messages ${messageNumbers(group.indexes)}.`);
  }
  const added = (before: number) =>
    request.added
      .filter((result) => result.before === before)
      .map((result) => {
        const text = messageText(result.message);
        const heading = `── [+] ${messageHeading(result.message)} · added by the request · answers [${result.callIndex + 1}]`;
        return `${fitted(heading, "   ")}\n${fitted(addedResultText(result), "  ")}\n${text}`;
      });
  const blocks = view.messages.flatMap((message, index) => {
    const entry = view.messageEntryIds[index] ?? "?";
    const tokens = view.messageTokens[index] ?? 0;
    const changes = request.changes[index] ?? [];
    const dropped = changes.some((change) => change.kind === "dropped") ? " [not sent]" : "";
    const inGroup = (change: RequestChange) => grouped.has(requestNoteKey(change));
    const marks = changes
      .filter((change) => inGroup(change) && change.kind !== "dropped")
      .map((change) => ` [${requestNoteFlag(change)}]`)
      .join("");
    const notes = changes
      .filter((change) => !inGroup(change))
      .map((change) => `${fitted(`request: ${requestChangeText(change, message)}`, "  ")}\n`)
      .join("");
    const failure = messageFailure(message);
    const heading = `── [${index + 1}]${dropped}${marks} ${messageHeading(message, view.messageKinds[index])} · entry ${entry} · ~${tokens} tokens`;
    return [
      ...added(index),
      `${fitted(heading, "   ")}\n${failure === null ? "" : `${fitted(failure, "  ")}\n`}${notes}${messageText(message)}`,
    ];
  });
  const shownHeader = header.map((line) => fitted(line, "  "));
  return [...shownHeader, "", ...blocks, ...added(view.messages.length)].join("\n");
}

export function renderSearchHits(hits: SearchHit[], columns?: number): string {
  if (hits.length === 0) return "No matches.";
  return hits
    .map((hit) => {
      const where = `${hit.sessionId} ${hit.entryId} ${hit.role ?? ""}`;
      const title = truncate(hit.sessionTitle ?? hit.sessionFirstMessage ?? "", 40);
      const snippet = truncate(hit.snippet, 120);
      return `${fitFields([where, title], columns)}\n    ${columns === undefined ? snippet : cutToColumns(snippet, columns - 4)}`;
    })
    .join("\n");
}
