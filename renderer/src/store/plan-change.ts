/**
 * How a compaction plan made again differs from the one on screen, and the one line the panel
 * says about it: the session grew, its view leaf moved, it changed otherwise, the settings it is
 * made with changed, or nothing did (then the plan on screen stays and nothing is said); and the
 * lines for a plan that cannot be made again (its leaf gone or archived, the request failed).
 */
import type { CompactionPlanDto } from "../../../core/api/dto.ts";

/** `restamped`: the same plan, made with settings that differ only where it does not show. */
export type PlanChange = "same" | "restamped" | "grew" | "moved" | "settings" | "changed";

/** The entries the plan's path has from its window on (summarized, turn prefix, kept). */
function pathIds(plan: CompactionPlanDto): Set<string> {
  return new Set([...plan.summarizeEntryIds, ...plan.turnPrefixEntryIds, ...plan.keptEntryIds]);
}

/**
 * `grew`: the new leaf is further down the same path (the old leaf is on it); `moved`: the
 * view leaf went elsewhere (whether the old leaf still exists is the caller's to ask).
 */
export function planChange(shown: CompactionPlanDto, next: CompactionPlanDto): PlanChange {
  if (JSON.stringify(shown) === JSON.stringify(next)) return "same";
  const { plannedWith: _shownWith, ...shownPlan } = shown;
  const { plannedWith: _nextWith, ...nextPlan } = next;
  if (JSON.stringify(shownPlan) === JSON.stringify(nextPlan)) return "restamped";
  if (next.leafId !== shown.leafId) return pathIds(next).has(shown.leafId) ? "grew" : "moved";
  // Same leaf: made with other settings (this window may not have heard of them yet), or the
  // session changed under it (an entry edited, a file rewritten with the same last id).
  return JSON.stringify(shown.plannedWith) !== JSON.stringify(next.plannedWith) ? "settings" : "changed";
}

/** The line about a plan made again after its session changed; null when nothing changed. */
export function sessionChangeNote(change: PlanChange, next: CompactionPlanDto): string | null {
  switch (change) {
    case "same":
    case "restamped":
      return null;
    case "grew":
      return `The session grew (its leaf is now ${next.leafId}): the plan was made again there.`;
    case "moved":
      return `The view leaf moved to ${next.leafId}: the plan was made again there.`;
    case "settings":
      return "The settings changed: the plan was made again with them.";
    case "changed":
      return "The session changed: the plan was made again.";
  }
}

/** The line when the plan's own leaf is no longer in its session (rewritten, its branch gone). */
export const leafGoneNote = (leafId: string) =>
  `The entry this plan was made at (${leafId}) is gone from the session: it cannot run; Compact… makes a new plan.`;

/** The line when the plan's session cannot be planned on any more (deleted, or nothing to compact now). */
export const sessionGoneNote = (message: string) => `${message.replace(/\.$/, "")}; this plan cannot run.`;

/**
 * The line when the plan's own leaf was archived (its branch hidden: an answered edit undone, or
 * Archive branch) and the view leaf went elsewhere: the plan now is the one at the view leaf.
 */
export const archivedLeafNote = (leafId: string, nextLeafId: string) =>
  `The entry this plan was made at (${leafId}) was archived (hidden; Show archived shows it): the plan was made again at the view leaf, ${nextLeafId}.`;

/**
 * The line when the plan's own leaf was archived and is still the view leaf (Archive branch,
 * confirmed): the plan is unchanged, and applies to a leaf the canvas now hides.
 */
export const archivedHereNote = (leafId: string) =>
  `The entry this plan is made at (${leafId}) was archived (hidden; Show archived shows it): it is still the view leaf, so the plan still applies to it.`;

/**
 * The line when the plan could not be made again after a change (`what`: "The session changed")
 * for a passing reason (the server unreachable, …): the plan shown stays, and can still run.
 */
export const replanFailedNote = (what: string, message: string) =>
  `${what}, and the plan could not be made again: ${message.replace(/\.$/, "")}. Retry asks again; Run first checks that this plan still holds, and runs nothing if it does not.`;
