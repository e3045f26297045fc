/**
 * The CLI's progress line: on a terminal, job events shown on one stderr line rewritten in
 * place (throttled), and cleared when the job ends, so that the command's output starts on a
 * line of its own. Nothing is shown when stderr is not a terminal, except one line when a search
 * has many entries to index first (imported, or re-checked once after an upgrade).
 */
import {
  type EventName,
  type Events,
  importProgressText,
  SEARCH_INDEX_JOB_ID,
  searchIndexProgressText,
} from "../../core/api/contract.ts";
import { SEARCH_INDEX_LABELS } from "../library/search-request.ts";
import type { CliContext } from "./context.ts";

/** What the line says for an event, or null to leave it as it is. */
export type ProgressText = <E extends EventName>(name: E, payload: Events[E]) => string | null;

/** How often the line may be rewritten: fast enough to look live, rare enough to cost nothing. */
const MIN_INTERVAL_MS = 50;

/** How often `tick` is asked for a line (a count of seconds). */
export const TICK_MS = 1000;

/**
 * Shows what `text` makes of each event until the returned function is called (which clears the
 * line); `tick`, asked every second, may also give a line (e.g. how long a wait has lasted).
 */
export function showProgress(cli: CliContext, text: ProgressText, tick?: () => string | null): () => void {
  if (!cli.io.isTerminal) return () => {};
  let shown = false;
  let last = Number.NEGATIVE_INFINITY;
  const show = (line: string | null) => {
    const now = performance.now();
    if (line === null || now - last < MIN_INTERVAL_MS) return;
    cli.io.progress(line);
    shown = true;
    last = now;
  };
  const unsubscribe = cli.api.ctx.events.subscribe((name, payload) => show(text(name, payload)));
  const timer = tick ? setInterval(() => show(tick()), TICK_MS) : undefined;
  return () => {
    clearInterval(timer);
    unsubscribe();
    if (shown) cli.io.progress("");
  };
}

/** The line of a folder import: the file being imported and how far the import is. */
export const importProgress: ProgressText = (name, payload) => {
  if (name !== "job:progressed") return null;
  return importProgressText(payload as Events["job:progressed"]);
};

/**
 * A search that first indexes many entries (SEARCH_INDEX_JOB_ID): on a terminal its
 * progress line; elsewhere one line saying so as it starts, so a long wait is never silent.
 */
export function showSearchIndexing(cli: CliContext): () => void {
  if (cli.io.isTerminal)
    return showProgress(cli, (name, payload) =>
      name === "job:progressed" ? searchIndexProgressText(payload as Events["job:progressed"]) : null,
    );
  return cli.api.ctx.events.subscribe((name, payload) => {
    if (name !== "job:progressed") return;
    const job = payload as Events["job:progressed"];
    if (job.jobId !== SEARCH_INDEX_JOB_ID || job.done !== 0 || job.ended === true) return;
    cli.io.err(searchIndexStartLine(job.label, job.total ?? 0));
  });
}

/** The one line a search's catch-up says as it starts: what it indexes, and why it is once. */
export function searchIndexStartLine(label: string, total: number): string {
  const count = total.toLocaleString("en-US");
  if (label === SEARCH_INDEX_LABELS.recheck)
    return `updating the search index first: re-checking ${count} entries indexed by an earlier version (once after an upgrade)…`;
  if (label === SEARCH_INDEX_LABELS.both)
    return `indexing ${count} entries for search first (new ones, and re-checking those indexed by an earlier version)…`;
  return `indexing ${count} new entries for search first (once after an import)…`;
}
