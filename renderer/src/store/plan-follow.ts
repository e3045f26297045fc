/**
 * An open compaction plan follows its session and the settings: it is made again when its session
 * changes (`session:changed`, `library:changed`: the agent appends, a chat turn in another tab, an
 * edit, a label or a leaf move from the CLI or another window), coalesced so that an agent writing
 * many lines asks a few times, not once a line; and when a setting it is made with changes
 * (`settings:changed` for another setting asks nothing). A plan that comes back the same stays
 * and nothing is said; one that differs replaces it with one line saying why. A session deleted
 * or a plan's leaf gone: one line, and the plan cannot run; its leaf archived: the plan at the
 * view leaf, saying so (or, the view leaf archived with it, that the plan still applies there).
 * A request that fails for a passing reason keeps the plan shown, runnable (main refuses it once
 * out of date: `stale_plan`), with one line and Retry. A settings or session change heard while
 * Compact… was still asking is checked against its answer. A keep-recent figure the user chose on
 * the slider stays theirs. Never a silent swap under a compaction already running.
 */
import { planSettingsChanged, planSettingsOf } from "../../../core/compaction/plan-settings.ts";
import type { Settings } from "../../../core/settings/schema.ts";
import { ApiCallError, call } from "../api.ts";
import { useCanopy } from "./index.ts";
import { selectRunning } from "./jobs-slice.ts";
import {
  archivedHereNote,
  archivedLeafNote,
  leafGoneNote,
  planChange,
  replanFailedNote,
  sessionChangeNote,
  sessionGoneNote,
} from "./plan-change.ts";

/** Quiet time after a session change before the plan is asked again. */
export const PLAN_FOLLOW_QUIET_MS = 250;
/** A session that keeps changing (an agent writing) has its plan asked again at least this often. */
export const PLAN_FOLLOW_MAX_WAIT_MS = 1500;

const tokens = (count: number) => `${count.toLocaleString("en-US")} tokens`;

/** Why the plan is to be made again: the settings as they became, and/or its session changed. */
interface Why {
  settings: Settings | null;
  session: boolean;
}

let pending: Why | null = null;
let timer: ReturnType<typeof setTimeout> | null = null;
/** When the first change of the pending ones was heard (the max wait counts from it). */
let pendingSince = 0;
let inFlight = false;
/** Why the last request failed for a passing reason (what Retry asks for again); null: none did. */
let lastFailed: Why | null = null;
/** The latest settings heard while Compact… or the slider was still asking (its answer may predate them). */
let heardWhileAsking: Settings | null = null;
/** The session whose change was heard while Compact… or the slider was still asking (its answer may predate it). */
let sessionHeardWhileAsking: string | null = null;

/** The open plan of this session, when a compaction is not running on it. */
function followedPlan(sessionId?: string) {
  const state = useCanopy.getState();
  const plan = state.plan;
  if (plan === null || plan.sessionId !== state.selectedSessionId) return null;
  if (sessionId !== undefined && plan.sessionId !== sessionId) return null;
  return selectRunning(state) === null ? plan : null;
}

/** `settings:changed`: the open plan is made again only when a setting it is made with changed. */
export function planFollowsSettings(settings: Settings): void {
  if (useCanopy.getState().planAsking > 0) heardWhileAsking = settings;
  const plan = followedPlan();
  if (plan === null || planSettingsChanged(plan.plannedWith, planSettingsOf(settings)).length === 0) return;
  want({ settings, session: false }, 0);
}

/** `session:changed`, `library:changed`, `job:ended` on a session: its open plan is asked again. */
export function planFollowsSession(sessionId: string): void {
  const state = useCanopy.getState();
  if (state.planAsking > 0 && state.selectedSessionId === sessionId) sessionHeardWhileAsking = sessionId;
  if (followedPlan(sessionId) === null) return;
  want({ settings: null, session: true }, PLAN_FOLLOW_QUIET_MS);
}

/**
 * Once the plans asked for by Compact… or the slider are all in, the one shown is made again if a
 * settings change heard meanwhile is not what it was made with, or its session changed meanwhile
 * (the answer may have been made before: a re-plan of the plan shown then is dropped once the
 * answer replaces it). Returns the unsubscribe.
 */
export function planFollowsAnswers(): () => void {
  return useCanopy.subscribe((state, before) => {
    if (state.planAsking > 0 || before.planAsking === 0) return;
    const settings = heardWhileAsking;
    const changedSession = sessionHeardWhileAsking;
    heardWhileAsking = null;
    sessionHeardWhileAsking = null;
    const plan = followedPlan();
    if (plan === null) return;
    const otherSettings = settings !== null && planSettingsChanged(plan.plannedWith, planSettingsOf(settings)).length > 0;
    const session = changedSession === plan.sessionId;
    if (otherSettings || session) want({ settings: otherSettings ? settings : null, session }, 0);
  });
}

/** Retry: the request that failed is made again (the panel's line about it stays until it answers). */
export function retryPlan(): void {
  if (followedPlan() === null) return;
  want(lastFailed ?? { settings: null, session: true }, 0);
}

function want(why: Why, quietMs: number): void {
  const now = Date.now();
  if (pending === null) pendingSince = now;
  pending = {
    settings: why.settings ?? pending?.settings ?? null,
    session: why.session || (pending?.session ?? false),
  };
  if (timer !== null) clearTimeout(timer);
  const wait = Math.max(0, Math.min(quietMs, pendingSince + PLAN_FOLLOW_MAX_WAIT_MS - now));
  timer = setTimeout(flush, wait);
}

/** One request at a time: what comes in meanwhile is asked for once it answered. */
function flush(): void {
  timer = null;
  if (inFlight || pending === null) return;
  const why = pending;
  pending = null;
  inFlight = true;
  void replan(why).finally(() => {
    inFlight = false;
    if (pending !== null && timer === null) timer = setTimeout(flush, 0);
  });
}

async function replan(why: Why): Promise<void> {
  const asked = useCanopy.getState();
  const plan = followedPlan();
  const chosen = asked.planKeepRecentTokens;
  if (plan === null) return;
  let next: typeof plan;
  /** Where the entry the plan was made at is, once the view leaf went elsewhere. */
  let leaf: "kept" | "gone" | "archived" = "kept";
  /** The plan's own leaf, still the view leaf, is in an archived branch (null: not asked). */
  let hiddenHere: boolean | null = null;
  try {
    next = await call("compaction:preview", {
      sessionId: plan.sessionId,
      ...(chosen === null ? {} : { keepRecentTokens: chosen }),
    });
    const change = planChange(plan, next);
    if (change === "moved") {
      // The view leaf went elsewhere: is the entry the plan was made at still there, or hidden?
      const [found] = await call("session:entries", { sessionId: plan.sessionId, entryIds: [plan.leafId] });
      leaf = found === undefined ? "gone" : found.archived ? "archived" : "kept";
    } else if (why.session && (change === "same" || change === "restamped")) {
      // Nothing the plan shows changed: its branch may have been archived (Archive branch, confirmed).
      const [found] = await call("session:entries", { sessionId: plan.sessionId, entryIds: [plan.leafId] });
      hiddenHere = found?.archived === true;
    }
  } catch (error) {
    if (stillShown(plan, chosen)) failed(why, error as Error);
    return;
  }
  if (!stillShown(plan, chosen)) return;
  lastFailed = null;
  const now = useCanopy.getState();
  if (leaf === "gone") {
    useCanopy.setState({ planBlocked: leafGoneNote(plan.leafId), planNote: null, planRetry: null });
    return;
  }
  const change = planChange(plan, next);
  // Nothing shown changed: no line says it was made again (a restamped one is still taken, so
  // that the next settings change is compared with the settings it was made with).
  const same = change === "same" || change === "restamped";
  const blocked = now.planBlocked !== null;
  const settingsNote = why.settings === null ? null : noteForSettings(why.settings, plan, next, chosen, same);
  const sessionNote =
    leaf === "archived"
      ? archivedLeafNote(plan.leafId, next.leafId)
      : change === "settings" && why.settings !== null
        ? null
        : sessionChangeNote(change, next);
  let note: string | null;
  if (same) {
    if (blocked) note = "The session is as it was when the plan was made: it can run again.";
    else if (now.planRetry !== null) note = "The plan was made again: nothing in it changed.";
    else if (hiddenHere === true) note = archivedHereNote(plan.leafId);
    else if (hiddenHere === false && now.planNote === archivedHereNote(plan.leafId)) note = null;
    // The line about a figure chosen on the slider goes once the setting is that figure too.
    else if (why.settings !== null && chosen !== null) note = settingsNote;
    else note = now.planNote;
  } else {
    note = [sessionNote, settingsNote].filter((line) => line !== null).join(" ") || null;
  }
  if (change === "same" && note === now.planNote && !blocked && now.planRetry === null) return;
  useCanopy.setState({ plan: change === "same" ? plan : next, planNote: note, planBlocked: null, planRetry: null });
}

/** The plan asked about is still the one on screen, for the same figure, and nothing runs on it. */
function stillShown(plan: NonNullable<ReturnType<typeof followedPlan>>, chosen: number | null): boolean {
  const now = useCanopy.getState();
  return now.plan === plan && now.planKeepRecentTokens === chosen && selectRunning(now) === null;
}

function failed(why: Why, error: Error): void {
  if (error instanceof ApiCallError && (error.code === "not_found" || error.code === "invalid_input")) {
    // Main answered that there is no plan: deleted, or nothing to compact at its leaf any more
    // (compacted meanwhile). The plan stays in sight with the reason, and cannot run.
    lastFailed = null;
    useCanopy.setState({ planBlocked: sessionGoneNote(error.message), planNote: null, planRetry: null });
    return;
  }
  // A passing failure (the server unreachable, …) says nothing about the session: the plan shown
  // stays and can run — main checks it against the session as it is and refuses it if stale.
  lastFailed = why;
  const what = why.session ? "The session changed" : "The settings changed";
  useCanopy.setState({ planNote: null, planRetry: replanFailedNote(what, error.message) });
}

/** The line about a settings change (null: none to say). */
function noteForSettings(
  settings: Settings,
  plan: { requestedKeepRecentTokens: number },
  next: { requestedKeepRecentTokens: number },
  chosen: number | null,
  same: boolean,
): string | null {
  const setting = settings.compaction.keepRecentTokens;
  const remade = "The settings changed: the plan was made again with them.";
  if (chosen !== null) {
    // A line about the figure chosen goes once the setting is that figure too.
    if (setting !== chosen)
      return `Keep-recent is now ${tokens(setting)} in the settings; this plan keeps the ${tokens(chosen)} you chose.`;
    return same ? null : remade;
  }
  if (next.requestedKeepRecentTokens !== plan.requestedKeepRecentTokens) {
    return `Keep-recent is now ${tokens(next.requestedKeepRecentTokens)} (changed in the settings): the plan was made again with it.`;
  }
  return same ? null : remade;
}
