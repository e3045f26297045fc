/**
 * How many recent tokens a compaction keeps verbatim: moving the slider asks for a new plan
 * (compaction:preview with keepRecentTokens), and the canvas moves the planned cut with it.
 */
import { useEffect, useRef, useState } from "react";
import type { CompactionPlanDto } from "../../../../core/api/dto.ts";
import { call } from "../../api.ts";
import { useCanopy } from "../../store/index.ts";

const STEP = 500;

export function KeepRecentSlider({ plan }: { plan: CompactionPlanDto }) {
  const requested = useCanopy((state) => state.planKeepRecentTokens);
  const previewCompaction = useCanopy((state) => state.previewCompaction);
  const [setting, setSetting] = useState<number | null>(null);
  const [value, setValue] = useState<number | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);

  useEffect(() => {
    let alive = true;
    call("settings:get", {})
      .then((settings) => {
        if (alive) setSetting(settings.compaction.keepRecentTokens);
      })
      .catch(() => {
        // Without the setting the slider starts from the plan's own figure.
        if (alive) setSetting(plan.keepRecentTokens);
      });
    return () => {
      alive = false;
    };
  }, [plan.keepRecentTokens]);
  useEffect(
    () => () => {
      if (timer.current) clearTimeout(timer.current);
    },
    [],
  );

  const current = value ?? requested ?? setting ?? plan.keepRecentTokens;
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
