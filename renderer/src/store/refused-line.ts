/**
 * Why a control did nothing while a job runs on the open session (a click on an aria-disabled
 * button, a key press): one outcome line, "<what>: <the job-busy reason>", left as it is when the
 * same control is used again (a held key's repeats, a second click) rather than stacked or said again.
 */
import type { JobMessage } from "./job-messages.ts";

/** The line saying that `what` did nothing, and `why` (sessionBusyText: the job running on the session). */
export function refusedLine(what: string, why: string): JobMessage {
  return { kind: "error", text: `${what}: ${why.charAt(0).toLowerCase()}${why.slice(1)}` };
}

/** Shows that line unless the outcome line says it already. */
export function sayRefused(
  get: () => { jobMessage: JobMessage | null },
  set: (partial: { jobMessage: JobMessage }) => void,
  what: string,
  why: string,
): void {
  const line = refusedLine(what, why);
  if (get().jobMessage?.text !== line.text) set({ jobMessage: line });
}
