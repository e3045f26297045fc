/**
 * An open compaction plan follows the settings (`settings:changed`: this window's Settings,
 * another window or tab, `canopy settings set`): it is made again when what it was planned with
 * changed, and one line says so. A keep-recent figure the user chose on the slider stays theirs
 * (the line says what the setting became). Never a silent swap under a plan already running.
 */
import type { Settings } from "../../../core/settings/schema.ts";
import { call } from "../api.ts";
import { useCanopy } from "./index.ts";
import { selectSessionJob } from "./jobs-slice.ts";

const tokens = (count: number) => `${count.toLocaleString("en-US")} tokens`;

export async function planFollowsSettings(settings: Settings): Promise<void> {
  const asked = useCanopy.getState();
  const { plan, planKeepRecentTokens: chosen } = asked;
  if (plan === null || plan.sessionId !== asked.selectedSessionId || selectSessionJob(asked) !== null) return;
  const setting = settings.compaction.keepRecentTokens;
  let next: typeof plan;
  let failure: string | null = null;
  try {
    next = await call("compaction:preview", {
      sessionId: plan.sessionId,
      ...(chosen === null ? {} : { keepRecentTokens: chosen }),
    });
  } catch (error) {
    next = plan;
    failure = (error as Error).message;
  }
  const now = useCanopy.getState();
  // Asked for another plan, closed it or started the run meanwhile: that one stands.
  if (now.plan !== plan || now.planKeepRecentTokens !== chosen || selectSessionJob(now) !== null) return;
  if (failure !== null) {
    useCanopy.setState({
      plan: null,
      planNote: null,
      planError: `The settings changed, and the plan could not be made again: ${failure}`,
    });
    return;
  }
  const same = JSON.stringify(next) === JSON.stringify(plan);
  const remade = "The settings changed: the plan was made again with them.";
  let note: string | null;
  if (chosen !== null) {
    // A line about the figure chosen goes once the setting is that figure too.
    note =
      setting !== chosen
        ? `Keep-recent is now ${tokens(setting)} in the settings; this plan keeps the ${tokens(chosen)} you chose.`
        : same
          ? null
          : remade;
  } else if (next.requestedKeepRecentTokens !== plan.requestedKeepRecentTokens) {
    note = `Keep-recent is now ${tokens(next.requestedKeepRecentTokens)} (changed in the settings): the plan was made again with it.`;
  } else {
    note = same ? now.planNote : remade;
  }
  if (same && note === now.planNote) return;
  useCanopy.setState({ plan: same ? plan : next, planNote: note });
}
