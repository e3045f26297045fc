/**
 * Pruning in the session bar (SPEC §7, D9): Prune… shows what pruning old tool output would do
 * at the selected entry (else the view leaf) — how many outputs, the tokens saved, or plainly
 * why nothing — with the button that prunes them, and Restore pruned outputs when the session
 * has any. Unavailable, with the reason, while a job runs on the session; Escape closes the plan.
 */
import { type KeyboardEvent, useEffect, useRef } from "react";
import { onEvent } from "../../api.ts";
import { PRUNE_BUSY_TEXT } from "../../store/disabled-reasons.ts";
import { useCanopy } from "../../store/index.ts";
import { selectSessionJob, sessionBusyText } from "../../store/jobs-slice.ts";
import { sayRefused } from "../../store/refused-line.ts";
import { ErrorLine } from "../common/ErrorLine.tsx";
import { useReturnFocus } from "../common/return-focus.ts";
import { treeLookup } from "../tree/tree-lookup.ts";
import { applyLabel, planSentence } from "./prune-words.ts";

/** Why pruning cannot start on the open session now (a job runs there), or null. */
function useBusyReason(): string | null {
  return useCanopy((state) => {
    const job = selectSessionJob(state);
    return job === null ? null : sessionBusyText(job.kind);
  });
}

/** The session bar's Prune… button (next to Compact…). */
export function PruneButton() {
  const busyReason = useBusyReason();
  const previewPrune = useCanopy((state) => state.previewPrune);
  const refuseDuringJob = useCanopy((state) => state.refuseDuringJob);
  const closePrune = useCanopy((state) => state.closePrune);
  const open = useCanopy(
    (state) => state.prunePlan !== null && state.prunePlan.sessionId === state.selectedSessionId,
  );
  const button = useRef<HTMLButtonElement>(null);
  // Close (or Escape) takes the plan and its focused button away: the focus comes back here.
  useReturnFocus(open, () => button.current);
  return (
    <button
      type="button"
      ref={button}
      onClick={() => {
        if (!refuseDuringJob("Prune… did nothing")) void previewPrune();
      }}
      // The focus stays here once the plan opens: Escape closes it from here too (not while a job
      // runs: Escape then cancels that, App.tsx).
      onKeyDown={(event) => {
        if (event.key !== "Escape" || !open || busyReason !== null) return;
        event.stopPropagation();
        closePrune();
      }}
      // As Compact…: aria-disabled keeps a keyboard user's focus; the tooltip says why.
      aria-disabled={busyReason !== null}
      title={
        busyReason ??
        "Prune old tool output: see what it would do first (Ctrl/Cmd+Shift+P in the desktop app)"
      }
    >
      Prune…
    </button>
  );
}

/** The pruning plan under the session bar, with its actions. */
export function PrunePlan() {
  const plan = useCanopy((state) =>
    state.prunePlan?.sessionId === state.selectedSessionId ? state.prunePlan : null,
  );
  const error = useCanopy((state) => state.pruneError);
  const pruneBusy = useCanopy((state) => state.pruneBusy);
  const viewLeafId = useCanopy((state) =>
    state.tree?.sessionId === state.selectedSessionId ? state.tree.viewLeafId : null,
  );
  const selectedEntryId = useCanopy((state) => state.selectedEntryId);
  const hasPruned = useCanopy((state) => (state.tree ? treeLookup(state.tree.nodes).hasPruned : false));
  const busyReason = useBusyReason();
  const applyPrune = useCanopy((state) => state.applyPrune);
  const restorePruned = useCanopy((state) => state.restorePruned);
  const closePrune = useCanopy((state) => state.closePrune);
  const box = useRef<HTMLDivElement>(null);
  const unavailable = busyReason !== null || pruneBusy !== null;

  useEffect(() => {
    const offs = [
      onEvent("session:changed", (payload) => useCanopy.getState().pruneFollowsSession(payload.sessionId)),
      onEvent("library:changed", (payload) => {
        for (const sessionId of payload.sessionIds) useCanopy.getState().pruneFollowsSession(sessionId);
      }),
      onEvent("job:ended", (payload) => useCanopy.getState().pruneFollowsSession(payload.sessionId)),
    ];
    return () => {
      for (const off of offs) off();
    };
  }, []);

  // Pruning removes its button, restoring its own: the focus goes on to what the plan offers now
  // (only when the buttons change: a plan made again the same leaves the focus alone). Restoring
  // shows them in two steps (Restore goes before Prune N comes): the focus this effect put on Close
  // in between, still there, goes on too.
  const open = plan !== null;
  const willPrune = plan?.willPrune === true;
  const placed = useRef<HTMLButtonElement | null>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: run when the buttons shown change
  useEffect(() => {
    const active = document.activeElement;
    if (!open || (active !== null && active !== document.body && active !== placed.current)) return;
    placed.current = box.current?.querySelector<HTMLButtonElement>(".row button") ?? null;
    placed.current?.focus();
  }, [open, willPrune, hasPruned]);

  if (plan === null) return <ErrorLine message={error} />;
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    // As the compaction plan: Escape closes it, unless a job runs (then Escape cancels that, App.tsx).
    if (event.key !== "Escape" || busyReason !== null) return;
    event.stopPropagation();
    closePrune();
  };
  const where =
    plan.leafId === null
      ? "In the empty session"
      : plan.leafId === viewLeafId
        ? "At the view leaf"
        : // The plan stays the one asked for: another entry selected since, it names its own.
          plan.leafId === selectedEntryId
          ? "At the selected entry"
          : "At entry";
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: Escape from any control of the plan closes it
    <div className="plan" data-testid="prune-plan" ref={box} onKeyDown={onKeyDown}>
      <p data-testid="prune-plan-text">
        {where}
        {plan.leafId !== null && (
          <>
            {" "}
            <code>{plan.leafId}</code>
          </>
        )}
        : {planSentence(plan)}
      </p>
      {busyReason !== null && (
        <p className="note" role="status">
          {busyReason}
        </p>
      )}
      <ErrorLine message={error} />
      <div className="row">
        {plan.willPrune && (
          <button
            type="button"
            onClick={() => {
              if (!unavailable) void applyPrune();
            }}
            aria-disabled={unavailable}
            title={busyReason ?? undefined}
          >
            {pruneBusy === "apply" ? "Pruning…" : applyLabel(plan)}
          </button>
        )}
        {hasPruned && (
          <button
            type="button"
            onClick={() => {
              if (!unavailable) void restorePruned();
            }}
            aria-disabled={unavailable}
            title={busyReason ?? "Puts every pruned tool output of this session back"}
          >
            {pruneBusy === "restore" ? "Restoring…" : "Restore pruned outputs"}
          </button>
        )}
        <button
          type="button"
          onClick={() => {
            if (pruneBusy === null) closePrune();
            else
              sayRefused(
                useCanopy.getState,
                useCanopy.setState,
                "The pruning plan's Close did nothing",
                PRUNE_BUSY_TEXT[pruneBusy],
              );
          }}
          aria-disabled={pruneBusy !== null}
          title={pruneBusy === null ? undefined : PRUNE_BUSY_TEXT[pruneBusy]}
        >
          Close
        </button>
      </div>
    </div>
  );
}
