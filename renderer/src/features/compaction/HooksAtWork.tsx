/**
 * The running line of a compaction or branch summary while its hooks are at work (job:hooks):
 * the hook that runs, counting the seconds as the model's wait does (a hung hook is seen to, and
 * can be cancelled), or that a hook wrote the summary — never a wait for a model nobody asked.
 */
import type { JobHooksDto } from "../../../../core/api/dto-jobs.ts";
import { hooksLine } from "../../../../core/compaction/hooks-line.ts";
import { useNow } from "../common/use-now.ts";

/** `since`: when the hooks started, as Date.now() ms. */
export function HooksAtWork({ hooks, since }: { hooks: JobHooksDto; since: number }) {
  const now = Math.max(useNow(), Date.now());
  const seconds = hooks.status === "running" ? Math.max(0, Math.floor((now - since) / 1000)) : undefined;
  return <span data-testid="hooks-at-work">{hooksLine(hooks, seconds)}</span>;
}
