/**
 * How many recent tokens a compaction keeps verbatim: moving the slider asks for a new plan
 * (compaction:preview with keepRecentTokens), and the canvas moves the planned cut with it.
 * Unmoved, it shows what the plan was made with (the setting then: a plan made again after the
 * setting changed elsewhere moves it too).
 */
import { useEffect, useRef, useState } from "react";
import type { CompactionPlanDto } from "../../../../core/api/dto.ts";
import { useCanopy } from "../../store/index.ts";

const STEP = 500;

export function KeepRecentSlider({ plan }: { plan: CompactionPlanDto }) {
  const requested = useCanopy((state) => state.planKeepRecentTokens);
  const previewCompaction = useCanopy((state) => state.previewCompaction);
  /** Where the user has put it, until a plan is asked for without it (Compact… again). */
  const [value, setValue] = useState<number | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);

  useEffect(() => {
    if (requested === null) setValue(null);
  }, [requested]);
  useEffect(
    () => () => {
      if (timer.current) clearTimeout(timer.current);
    },
    [],
  );

  const current = value ?? requested ?? plan.requestedKeepRecentTokens;
  const max = Math.max(Math.ceil((plan.tokensBeforeEstimated * 1.2) / STEP) * STEP, current, 4 * STEP);
  const onChange = (next: number) => {
    setValue(next);
    if (timer.current) clearTimeout(timer.current);
    timer.current = setTimeout(() => void previewCompaction(next), 200);
  };
  return (
    <div className="keep-recent">
      <label htmlFor="keep-recent-tokens">
        Keep the most recent <strong>{current.toLocaleString()}</strong> tokens verbatim
      </label>
      <input
        id="keep-recent-tokens"
        type="range"
        min={STEP}
        max={max}
        step={STEP}
        value={Math.min(current, max)}
        onChange={(event) => onChange(Number(event.target.value))}
        aria-valuetext={`${current.toLocaleString()} tokens`}
      />
      {plan.keepRecentTokens !== current && (
        <span className="note">
          {" "}
          ({plan.keepRecentTokens.toLocaleString()} after scaling to the measured usage)
        </span>
      )}
    </div>
  );
}
