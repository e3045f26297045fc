/**
 * The context bar's figures (SPEC §4, D10): the estimate of the view, the measured context of
 * the last assistant usage, the model's window and the compaction threshold (window −
 * reserveTokens, compared strictly as in §4.3), as positions on one scale. Pure.
 */
import type { ContextView } from "../../../../core/api/dto.ts";

export interface ContextLimits {
  /** settings.model.contextWindow; null when no model is configured (offline summarizer). */
  contextWindow: number | null;
  reserveTokens: number;
  compactionEnabled: boolean;
  /** No model and no remote endpoint: the built-in offline summarizer writes every summary (no model waited for). */
  offlineSummarizer?: boolean;
  /** A model is configured (settings.model): it writes branch summaries, and compactions without a remote endpoint. */
  modelConfigured?: boolean;
  /** compaction.remoteEndpoint is set: it writes a compaction's main summary. */
  remoteSummarizer?: boolean;
}

export type ContextLevel = "ok" | "above-threshold" | "over-window" | "unknown";

export interface ContextFigures {
  estimated: number;
  measured: number | null;
  window: number | null;
  threshold: number | null;
  /** The value 100 % of the bar stands for. */
  scale: number;
  estimatedPercent: number;
  measuredPercent: number | null;
  thresholdPercent: number | null;
  /**
   * Judged on the measured figure when there is one (the agent's check uses it), else the estimate.
   * A stale measurement (from a reply before the compaction in effect) is not judged: the agent's
   * next check uses the next reply's usage, which counts the compacted context.
   */
  level: ContextLevel;
  measuredStale: boolean;
  /** The sentence the bar says about `level`; null when there is nothing to warn about. */
  warning: string | null;
}

function warningFor(level: ContextLevel, compactionEnabled: boolean): string | null {
  if (level === "over-window")
    return "This context is larger than the model's window: the next request would overflow.";
  if (level !== "above-threshold") return null;
  return compactionEnabled
    ? "This context is above the compaction threshold: the agent would compact after the next reply."
    : "This context is above the compaction threshold; automatic compaction is off, so nothing compacts it.";
}

const percent = (value: number, scale: number) => (scale > 0 ? Math.min(100, (value / scale) * 100) : 0);

export function contextFigures(
  view: Pick<ContextView, "estimatedTokens" | "measuredTokens">,
  limits: ContextLimits | null,
  measuredStale = false,
): ContextFigures {
  const estimated = view.estimatedTokens;
  const measured = view.measuredTokens;
  const window = limits?.contextWindow ?? null;
  const threshold = window !== null && limits ? Math.max(0, window - limits.reserveTokens) : null;
  const largest = Math.max(estimated, measured ?? 0);
  // Without a window the bar shows the two figures against each other, with some headroom.
  const scale = window ?? Math.max(1, Math.ceil(largest * 1.15));
  const judged = measured !== null && !measuredStale ? measured : estimated;
  let level: ContextLevel = "unknown";
  if (window !== null) {
    if (judged > window) level = "over-window";
    else if (threshold !== null && judged > threshold) level = "above-threshold";
    else level = "ok";
  }
  return {
    estimated,
    measured,
    window,
    threshold,
    scale,
    estimatedPercent: percent(estimated, scale),
    measuredPercent: measured === null ? null : percent(measured, scale),
    thresholdPercent: threshold === null ? null : percent(threshold, scale),
    level,
    measuredStale: measured !== null && measuredStale,
    warning: warningFor(level, limits?.compactionEnabled ?? true),
  };
}
