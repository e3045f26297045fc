/**
 * The model and thinking level in effect at the view's leaf (SPEC §3.2), under the leaf line:
 * what the path sets, or that it sets none and what the agent then uses; omp's other roles follow.
 * Each setting wraps as a unit (a narrow pane left "thinking" and its level on two lines).
 */
import type { ContextView } from "../../../../core/api/dto.ts";
import {
  NO_MODEL_ON_PATH,
  NO_THINKING_ON_PATH,
  pathSettings,
} from "../../../../core/session/path-settings.ts";
import { showBidiControls } from "../common/bidi-controls.ts";

/** One setting, "<label> <value>" (wrapping as a unit), or "<label>: <missing>" when the path sets none. */
function PathSetting({ label, value, missing }: { label: string; value: string | null; missing?: string }) {
  return (
    <span className="path-setting">
      {value === null ? (
        <>
          {label}: {missing}
        </>
      ) : (
        <>
          {label} <code>{showBidiControls(value)}</code>
        </>
      )}
    </span>
  );
}

export function PathSettings({ context }: { context: ContextView }) {
  const { model, thinking, roles } = pathSettings(context);
  return (
    <p
      className="path-settings"
      data-testid="path-settings"
      data-model={model ?? ""}
      data-thinking={thinking ?? ""}
    >
      <PathSetting label="Model" value={model} missing={NO_MODEL_ON_PATH} />
      {" · "}
      <PathSetting label="thinking" value={thinking} missing={NO_THINKING_ON_PATH} />
      {roles.map(([role, name]) => (
        <span key={role}>
          {" · "}
          <PathSetting label={showBidiControls(role)} value={name} />
        </span>
      ))}
    </p>
  );
}
