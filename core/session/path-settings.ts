/**
 * The model and thinking level in effect at a leaf (SPEC §3.2) in words, for the LLM view's header
 * and `canopy context`: what the path sets, or what the agent uses when it sets none.
 */
import type { ContextView } from "../api/dto.ts";

export type PathSettingsSource = Pick<
  ContextView,
  "model" | "models" | "thinkingLevel" | "thinkingLevelOnPath"
>;

/** Said when the path names no model: on resume the agent takes its configured one (SPEC §3.2). */
export const NO_MODEL_ON_PATH = "none on this path (the agent uses its default model)";
/** Said when the path has no thinking_level_change: the agent uses defaultThinkingLevel. */
export const NO_THINKING_ON_PATH =
  "none on this path (the agent uses its default level, off unless configured)";

export interface PathSettings {
  /** "provider/modelId", null: none on the path. */
  model: string | null;
  /** The level the path sets, null: none. */
  thinking: string | null;
  /** omp's other model roles on the path ("smol" → "provider/modelId"). */
  roles: [string, string][];
}

export function pathSettings(view: PathSettingsSource): PathSettings {
  return {
    model: view.model,
    thinking: view.thinkingLevelOnPath ? view.thinkingLevel : null,
    roles: Object.entries(view.models).filter(([role]) => role !== "default"),
  };
}
