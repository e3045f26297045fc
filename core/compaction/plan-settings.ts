/**
 * The settings a compaction plan is made with (SPEC §5, §10.1): how much it keeps, the bound of the
 * summary, and which summarizer would write it. A plan carries them (CompactionPlanDto.plannedWith)
 * so that a window can tell a settings change that makes its open plan out of date from one that
 * does not (renderer/src/store/plan-follow.ts) without asking main.
 */
import type { Settings } from "../settings/schema.ts";

export interface PlanSettings {
  /** compaction.keepRecentTokens (the setting; a plan may keep another figure the user chose). */
  keepRecentTokens: number;
  /** compaction.reserveTokens: the summary's bound is 80% of it. */
  reserveTokens: number;
  /** compaction.remoteEndpoint: the remote summarizer, when set. */
  remoteEndpoint: string | null;
  /** The model that would summarize (null: the built-in offline summarizer). */
  model: { baseUrl: string; id: string } | null;
}

export function planSettingsOf(settings: Settings): PlanSettings {
  const { keepRecentTokens, reserveTokens, remoteEndpoint } = settings.compaction;
  const model = settings.model === null ? null : { baseUrl: settings.model.baseUrl, id: settings.model.id };
  return { keepRecentTokens, reserveTokens, remoteEndpoint, model };
}

/** Which of the plan's settings differ between `before` and `after`, in words; empty: none does. */
export function planSettingsChanged(before: PlanSettings, after: PlanSettings): string[] {
  const changed: string[] = [];
  if (before.keepRecentTokens !== after.keepRecentTokens) changed.push("keep-recent");
  if (before.reserveTokens !== after.reserveTokens) changed.push("reserve");
  const summarizer =
    before.remoteEndpoint !== after.remoteEndpoint ||
    before.model?.baseUrl !== after.model?.baseUrl ||
    before.model?.id !== after.model?.id;
  if (summarizer) changed.push("summarizer");
  return changed;
}
