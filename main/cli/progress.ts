/**
 * The CLI's progress line: on a terminal, job events shown on one stderr line rewritten in
 * place (throttled), and cleared when the job ends, so that the command's output starts on a
 * line of its own. Nothing is shown when stderr is not a terminal.
 */
import { type EventName, type Events, importProgressText } from "../../core/api/contract.ts";
import type { CliContext } from "./context.ts";

/** What the line says for an event, or null to leave it as it is. */
export type ProgressText = <E extends EventName>(name: E, payload: Events[E]) => string | null;

/** How often the line may be rewritten: fast enough to look live, rare enough to cost nothing. */
const MIN_INTERVAL_MS = 50;

/** Shows what `text` makes of each event until the returned function is called (which clears the line). */
export function showProgress(cli: CliContext, text: ProgressText): () => void {
  if (!cli.io.isTerminal) return () => {};
  let shown = false;
  let last = Number.NEGATIVE_INFINITY;
  const unsubscribe = cli.api.ctx.events.subscribe((name, payload) => {
    const line = text(name, payload);
    const now = performance.now();
    if (line === null || now - last < MIN_INTERVAL_MS) return;
    cli.io.progress(line);
    shown = true;
    last = now;
  });
  return () => {
    unsubscribe();
    if (shown) cli.io.progress("");
  };
}

/** The line of a folder import: the file being imported and how far the import is. */
export const importProgress: ProgressText = (name, payload) => {
  if (name !== "job:progressed") return null;
  return importProgressText(payload as Events["job:progressed"]);
};
