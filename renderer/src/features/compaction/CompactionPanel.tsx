/**
 * One-click compaction (and, next to it, pruning: features/pruning): shows the plan (no model call; the canvas marks the cut and what gets
 * summarized), a keepRecentTokens slider that re-plans, runs it with optional instructions,
 * streams the summary while it is written, and Escape cancels. Its top row is the open
 * session's bar: the title (rename) and Export… come first, and the file's problems below it.
 * The plan is made again when its session or a setting it is made with changes, wherever
 * (plan-follow.ts), and says so; a plan whose session was deleted or whose leaf is gone cannot run;
 * one that could not be made again (a passing failure) says why and offers Retry. Escape in the
 * plan closes it (while nothing runs: then Escape cancels the job); the additional focus typed
 * stays with its session for the next Compact….
 */
import { type KeyboardEvent, type MouseEvent, useEffect, useRef } from "react";
import { OFFLINE_WRITING, summaryWriter } from "../../../../core/compaction/summary-writer.ts";
import { counted } from "../../../../core/session/describe.ts";
import { onEvent } from "../../api.ts";
import { useCanopy } from "../../store/index.ts";
import { selectRunning, selectSessionJob, sessionBusyText } from "../../store/jobs-slice.ts";
import { planFollowsAnswers, planFollowsSession, planFollowsSettings, retryPlan } from "../../store/plan-follow.ts";
import { ErrorLine } from "../common/ErrorLine.tsx";
import { WaitingForModel } from "../common/WaitingForModel.tsx";
import { useReturnFocus } from "../common/return-focus.ts";
import { SessionHeader } from "../edits/SessionHeader.tsx";
import { PruneButton, PrunePlan } from "../pruning/PrunePanel.tsx";
import { KeptCopyNote, SessionProblems } from "../tree/SessionProblems.tsx";
import { SessionUsage } from "../tree/SessionUsage.tsx";
import { HooksAtWork } from "./HooksAtWork.tsx";
import { KeepRecentSlider } from "./KeepRecentSlider.tsx";

export function CompactionPanel() {
  const plan = useCanopy((state) => state.plan);
  const planError = useCanopy((state) => state.planError);
  const planNote = useCanopy((state) => state.planNote);
  const planBlocked = useCanopy((state) => state.planBlocked);
  const planRetry = useCanopy((state) => state.planRetry);
  const running = useCanopy(selectRunning);
  // A chat turn holds the session too: no compaction starts before it ends.
  const busy = useCanopy((state) => selectSessionJob(state) !== null);
  // Why Compact… and Run compaction are unavailable (their tooltip); a click says it on the outcome line.
  const busyReason = useCanopy((state) => {
    const job = selectSessionJob(state);
    return job === null ? undefined : sessionBusyText(job.kind);
  });
  const refuseDuringJob = useCanopy((state) => state.refuseDuringJob);
  const previewCompaction = useCanopy((state) => state.previewCompaction);
  const notify = useCanopy((state) => state.notify);
  const runCompaction = useCanopy((state) => state.runCompaction);
  const closePlan = useCanopy((state) => state.closePlan);
  const cancelRunning = useCanopy((state) => state.cancelRunning);
  // Who writes the summary (the remote endpoint, the model, or the built-in summarizer, for
  // which nothing is waited for); unknown until the settings are read: the model.
  const model = useCanopy((state) => state.limits?.modelConfigured !== false);
  const remote = useCanopy((state) => state.limits?.remoteSummarizer === true);
  const writer = running && summaryWriter(running.kind === "compaction" ? "compaction" : "branch-summary", { model, remote });
  // Kept by session (the store): Escape or Close loses nothing, another session's plan shows its own.
  const sessionId = useCanopy((state) => state.selectedSessionId);
  const instructions = useCanopy((state) => (sessionId === null ? "" : (state.planInstructions[sessionId] ?? "")));
  const setPlanInstructions = useCanopy((state) => state.setPlanInstructions);
  const compactButton = useRef<HTMLButtonElement>(null);
  const cancelButton = useRef<HTMLButtonElement>(null);
  const runButton = useRef<HTMLButtonElement>(null);
  // Run or Close takes the plan (and its focused button) away: the focus goes to Cancel while the
  // compaction runs, and back to Compact… once it is done. Only a compaction's: a branch summary
  // ending leaves the focus to the tree, where it was asked.
  useReturnFocus(plan !== null, () => cancelButton.current ?? compactButton.current);
  useReturnFocus(running?.kind === "compaction", () => compactButton.current);
  // Run compaction stays on screen but is unavailable while it runs: a keyboard user started it,
  // so Cancel takes the focus (Enter stops it). A branch summary's focus is the tree's (the move
  // dialog gives it to the entry it was about).
  const runningHere = running?.here === true && running.kind === "compaction";
  useEffect(() => {
    if (!runningHere) return;
    const active = document.activeElement;
    if (active === null || active === document.body || active === runButton.current) cancelButton.current?.focus();
  }, [runningHere]);
  useEffect(() => {
    const offs = [
      onEvent("settings:changed", (payload) => {
        planFollowsSettings(payload.settings);
        // A model configured or removed: whether the running line waits for one follows.
        void useCanopy.getState().loadLimits();
      }),
      onEvent("session:changed", (payload) => planFollowsSession(payload.sessionId)),
      onEvent("library:changed", (payload) => {
        for (const sessionId of payload.sessionIds) planFollowsSession(sessionId);
      }),
      // A compaction elsewhere: the changes it made may have been heard while it still ran.
      onEvent("job:ended", (payload) => planFollowsSession(payload.sessionId)),
      // A settings change heard while Compact… still asked: its answer is checked against it.
      planFollowsAnswers(),
    ];
    return () => {
      for (const off of offs) off();
    };
  }, []);

  // Escape in the plan closes it, as in a dialog; with a job running it cancels that (App.tsx).
  const onPlanKey = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.key !== "Escape" || busy) return;
    event.stopPropagation();
    closePlan();
  };
  // Retry goes with its line: the plan's Run compaction takes the focus it had.
  const onRetryPlan = (event: MouseEvent<HTMLButtonElement>) => {
    const pressed = document.activeElement === event.currentTarget;
    retryPlan();
    if (pressed) runButton.current?.focus();
  };

  return (
    <section className="panel compaction-panel" aria-label="Compaction">
      <div className="row">
        {/* The session's own bar: its title (rename) and export, then compaction. */}
        <SessionHeader />
        {/* Compact… and Prune… go to the next line together when the title needs the room. */}
        <span className="session-jobs">
          <button
            type="button"
            ref={compactButton}
            onClick={() => {
              // With no session open it says what it needs, as the desktop menu's Compact… does.
              if (sessionId === null) notify({ level: "error", message: "Select a session to compact." });
              else if (!refuseDuringJob("Compact… did nothing")) void previewCompaction();
            }}
            // The focus stays here once the plan opens: Escape closes it from here too.
            onKeyDown={(event) => {
              if (event.key !== "Escape" || plan === null || busy) return;
              event.stopPropagation();
              closePlan();
            }}
            // Busy (a job on the session, maybe another window's): aria-disabled, not disabled,
            // which would drop a keyboard user's focus on the page.
            aria-disabled={busy}
            title={busyReason}
          >
            Compact…
          </button>
          <PruneButton />
          {running && (
            <button
              type="button"
              ref={cancelButton}
              onClick={() => void cancelRunning()}
              aria-keyshortcuts="Escape"
            >
              Cancel (Esc)
            </button>
          )}
        </span>
      </div>
      <SessionUsage />
      <SessionProblems />
      <KeptCopyNote />
      <ErrorLine message={planError} />
      {plan && (
        // biome-ignore lint/a11y/noStaticElementInteractions: Escape from any control of the plan closes it
        <div className="plan" data-testid="compaction-plan" onKeyDown={onPlanKey}>
          {planNote && (
            <p className="note" role="status" data-testid="plan-remade">
              {planNote}
            </p>
          )}
          {planBlocked && (
            <p className="note" role="status" data-testid="plan-blocked">
              {planBlocked}
            </p>
          )}
          {planRetry && (
            <p className="note" role="alert" data-testid="plan-retry">
              {planRetry}{" "}
              <button type="button" onClick={onRetryPlan}>
                Retry
              </button>
            </p>
          )}
          <p>
            Keeps from <code>{plan.firstKeptEntryId}</code>
            {plan.isSplitTurn ? ` (split turn from ${plan.turnStartEntryId})` : ""}; summarizes{" "}
            {counted(plan.summarizeEntryIds.length, "entry", "entries")}{plan.previousSummary ? " and the previous summary" : ""}
            {plan.turnPrefixEntryIds.length > 0 ? ` plus a ${plan.turnPrefixEntryIds.length}-entry turn prefix` : ""}.
          </p>
          <p>
            Tokens before: {plan.tokensBefore.toLocaleString()} (measured {plan.tokensBeforeMeasured?.toLocaleString() ?? "n/a"}
            , estimated {plan.tokensBeforeEstimated.toLocaleString()}). After: ~{plan.keptTokens.toLocaleString()} kept
            verbatim (estimated) + a summary of at most {plan.maxSummaryTokens.toLocaleString()} (≤{" "}
            {(plan.keptTokens + plan.maxSummaryTokens).toLocaleString()}). Summarizer: {plan.summarizer}.
          </p>
          <KeepRecentSlider plan={plan} />
          {plan.notes.map((note) => (
            <p key={note} className="note">
              {note}
            </p>
          ))}
          <label htmlFor="compaction-instructions">Additional focus (optional)</label>
          <textarea
            id="compaction-instructions"
            rows={2}
            value={instructions}
            onChange={(event) => {
              if (sessionId !== null) setPlanInstructions(sessionId, event.target.value);
            }}
          />
          <div className="row">
            <button
              type="button"
              ref={runButton}
              onClick={() => {
                if (!refuseDuringJob("Run compaction did nothing") && planBlocked === null)
                  void runCompaction(instructions);
              }}
              aria-disabled={busy || planBlocked !== null}
              title={busyReason ?? planBlocked ?? undefined}
            >
              Run compaction
            </button>
            <button
              type="button"
              onClick={() => {
                if (running === null) closePlan();
                else refuseDuringJob("The compaction plan's Close did nothing");
              }}
              aria-disabled={running !== null}
              title={running === null ? undefined : busyReason}
            >
              Close
            </button>
          </div>
        </div>
      )}
      <PrunePlan />
      {running && (
        <div className="running" role="status" aria-live="polite">
          <p>{running.kind === "compaction" ? "Compacting…" : "Summarizing the branch…"} Press Escape to cancel.</p>
          {/* Until the main side says it started, it is not known whether hooks run first. */}
          {running.text ? (
            <pre className="stream">{running.text}</pre>
          ) : running.hooks ? (
            <p>
              <HooksAtWork hooks={running.hooks} since={running.since} />
            </p>
          ) : running.jobId === null ? null : writer === "offline" ? (
            <p data-testid="offline-summarizer">{OFFLINE_WRITING}</p>
          ) : (
            <p>
              <WaitingForModel since={running.since} remote={writer === "remote"} />
            </p>
          )}
        </div>
      )}
    </section>
  );
}
