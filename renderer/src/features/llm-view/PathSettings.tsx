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

export function PathSettings({ context }: { context: ContextView }) {
  const { model, thinking, roles } = pathSettings(context);
  return (
    <p
      className="path-settings"
      data-testid="path-settings"
      data-model={model ?? ""}
      data-thinking={thinking ?? ""}
    >
      <span className="path-setting">
        {model === null ? (
          <>Model: {NO_MODEL_ON_PATH}</>
        ) : (
          <>
            Model <code>{showBidiControls(model)}</code>
          </>
        )}
      </span>
      {" · "}
      <span className="path-setting">
        {thinking === null ? (
          <>thinking: {NO_THINKING_ON_PATH}</>
        ) : (
          <>
            thinking <code>{showBidiControls(thinking)}</code>
          </>
        )}
      </span>
      {roles.map(([role, name]) => (
        <span key={role}>
          {" · "}
          <span className="path-setting">
            {showBidiControls(role)} <code>{showBidiControls(name)}</code>
          </span>
        </span>
      ))}
    </p>
  );
}
