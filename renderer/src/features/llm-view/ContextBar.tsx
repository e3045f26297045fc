/**
 * The context bar (SPEC §4, D10): the estimate of what the model receives and the measured context
 * of the last reply, against the model's window and the compaction threshold. Without a model the
 * window is unknown and the offline summarizer (or, for compactions, the remote endpoint) writes
 * summaries; the bar says so. A measurement context:get calls older than the compaction in effect
 * is shown as stale (SPEC §4.4).
 */
import type { ContextView } from "../../../../core/api/dto.ts";
import { useCanopy } from "../../store/index.ts";
import { contextFigures } from "./context-figures.ts";
import { formatTokens } from "./message-parts.ts";

export function ContextBar({ context }: { context: ContextView }) {
  const limits = useCanopy((state) => state.limits);
  const limitsError = useCanopy((state) => state.limitsError);
  // The answer says whether its measurement is from a reply before the compaction in effect
  // (from the leaf's path, as `canopy context` says it): the page's tree may not have come yet.
  const stale = context.measuredBeforeCompaction === true;
  const figures = contextFigures(context, limits, stale);
  const attr = (value: number | null) => (value === null ? "" : String(value));

  return (
    <section
      className={`context-bar level-${figures.level}`}
      data-testid="context-bar"
      data-estimated={figures.estimated}
      data-measured={attr(figures.measured)}
      data-window={attr(figures.window)}
      data-threshold={attr(figures.threshold)}
      data-level={figures.level}
      data-measured-stale={stale ? "true" : undefined}
      aria-label="Context usage"
    >
      <div className="bar-track" aria-hidden="true">
        <div className="bar-estimated" style={{ width: `${figures.estimatedPercent}%` }} />
        {figures.measuredPercent !== null && (
          <div
            className={stale ? "bar-measured stale" : "bar-measured"}
            style={{ width: `${figures.measuredPercent}%` }}
          />
        )}
        {figures.thresholdPercent !== null && (
          <div className="bar-threshold" style={{ left: `${figures.thresholdPercent}%` }} />
        )}
      </div>
      <ul className="bar-legend">
        <li>
          <span className="swatch estimated" aria-hidden="true" />
          Estimated <strong>~{formatTokens(figures.estimated)}</strong>
        </li>
        <li>
          <span className="swatch measured" aria-hidden="true" />
          {figures.measured === null ? (
            <>Measured: no reply with usage on this path</>
          ) : (
            <>
              Measured <strong>{formatTokens(figures.measured)}</strong> (last reply
              {stale ? ", before the compaction: stale until the next reply" : ""})
            </>
          )}
        </li>
        <li>
          <span className="swatch threshold" aria-hidden="true" />
          {figures.threshold === null ? (
            <>Threshold unknown</>
          ) : (
            <>
              Threshold <strong>{formatTokens(figures.threshold)}</strong>
              {limits && !limits.compactionEnabled ? " (automatic compaction off)" : ""}
            </>
          )}
        </li>
        <li>
          {figures.window === null ? (
            <>
              Unknown window
              <span className="note" data-testid="no-model-note">
                {" "}
                — no model configured;{" "}
                {limits?.remoteSummarizer
                  ? "compaction summaries go to the remote summary endpoint, the rest to the built-in offline summarizer"
                  : "summaries use the built-in offline summarizer"}
              </span>
            </>
          ) : (
            <>
              Window <strong>{formatTokens(figures.window)}</strong>
            </>
          )}
        </li>
      </ul>
      {figures.warning && <p className="bar-warning">{figures.warning}</p>}
      {limitsError && <p className="error">Could not read the model settings: {limitsError}</p>}
    </section>
  );
}
