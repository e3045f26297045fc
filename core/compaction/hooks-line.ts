/**
 * The words for a compaction's or branch summary's hooks at work (JobHooksDto), the same in the
 * app's running line and the CLI's progress line: which hook runs and what it may do, counting
 * the seconds as the model's wait does, or that a hook wrote the summary (no model is asked).
 */
import type { JobHooksDto } from "../api/dto-jobs.ts";

/** E.g. "The session_before_compact hook summary.mjs is running; it may write the summary itself… 3 s". */
export function hooksLine(hooks: JobHooksDto, seconds?: number): string {
  const one = hooks.files.length === 1;
  const names = hooks.files.join(", ");
  const which = one ? `The ${hooks.event} hook ${names}` : `The ${hooks.event} hooks (${names})`;
  if (hooks.status === "wrote") {
    const writer = one ? which : `A ${hooks.event} hook (${names})`;
    return `${writer} wrote the summary; no model is asked.`;
  }
  const doing =
    hooks.event === "session.compacting"
      ? `${one ? "is" : "are"} running; the summary is asked for once ${one ? "it is" : "they are"} done…`
      : `${one ? "is running; it" : "are running; one"} may write the summary itself…`;
  return `${which} ${doing}${seconds === undefined ? "" : ` ${seconds} s`}`;
}
