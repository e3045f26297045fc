/**
 * CLI commands that run Canopy's pipelines: compact, navigate, prune and settings. Long runs
 * show the streamed summary on stderr when it is a terminal, and Ctrl+C cancels them cleanly.
 */
import type { EventName, Events } from "../../core/api/contract.ts";
import type { CompactionPlanDto } from "../../core/api/dto.ts";
import type { JobHooksDto } from "../../core/api/dto-jobs.ts";
import { failureLine } from "../../core/compaction/failure-line.ts";
import { hooksLine } from "../../core/compaction/hooks-line.ts";
import {
  OFFLINE_WRITING,
  remoteWaitingText,
  type SummaryWriter,
  summaryWriterOf,
} from "../../core/compaction/summary-writer.ts";
import { counted } from "../../core/session/describe.ts";
import { getSettingAt, SETTING_KEYS } from "../../core/settings/schema.ts";
import type { HookError } from "../hooks/types.ts";
import { reasonOf } from "../library/files.ts";
import type { ParsedCommand } from "./args.ts";
import { UsageError } from "./args.ts";
import { type CliContext, CommandError } from "./context.ts";
import { showProgress } from "./progress.ts";
import { toJson } from "../../core/text/json-deep.ts";
import { cutOffLine } from "../../core/compaction/cut-off-line.ts";
import { fitText } from "../../core/text/columns.ts";

/** The plan keys `compact --dry-run --json` prints, in this order (issue contract). */
export function planAsJson(plan: CompactionPlanDto) {
  return {
    firstKeptEntryId: plan.firstKeptEntryId,
    isSplitTurn: plan.isSplitTurn,
    turnStartEntryId: plan.turnStartEntryId,
    tokensBefore: plan.tokensBefore,
    keepRecentTokens: plan.keepRecentTokens,
    summarizeEntryIds: plan.summarizeEntryIds,
    turnPrefixEntryIds: plan.turnPrefixEntryIds,
    keptEntryIds: plan.keptEntryIds,
    previousSummary: plan.previousSummary,
    readFiles: plan.readFiles,
    modifiedFiles: plan.modifiedFiles,
  };
}

/** `columns`: the terminal's width; each line is wrapped to it, continued under its value. */
function renderPlan(plan: CompactionPlanDto, columns?: number): string {
  const lines = [
    `Compaction plan at leaf ${plan.leafId} (summarizer: ${plan.summarizer})`,
    `  first kept entry   ${plan.firstKeptEntryId}${plan.isSplitTurn ? ` (split turn starting at ${plan.turnStartEntryId})` : ""}`,
    `  tokens before      ${plan.tokensBefore} (measured ${plan.tokensBeforeMeasured ?? "n/a"}, estimated ${plan.tokensBeforeEstimated})`,
    `  keep budget        ${plan.keepRecentTokens} tokens (after adaptation)`,
    `  summarized         ${counted(plan.summarizeEntryIds.length, "entry", "entries")}${plan.previousSummary ? " + the previous summary" : ""}`,
    `  turn prefix        ${counted(plan.turnPrefixEntryIds.length, "entry", "entries")}`,
    `  kept verbatim      ${counted(plan.keptEntryIds.length, "entry", "entries")}, ~${plan.keptTokens} tokens`,
    `  tokens after       ≤ ${plan.keptTokens + plan.maxSummaryTokens} (kept + at most ${plan.maxSummaryTokens} of summary)`,
  ];
  if (plan.readFiles.length > 0) lines.push(`  read files         ${plan.readFiles.join(", ")}`);
  if (plan.modifiedFiles.length > 0) lines.push(`  modified files     ${plan.modifiedFiles.join(", ")}`);
  for (const note of plan.notes) lines.push(`  note: ${note}`);
  return lines
    .map((line, i) => fitText(line, columns, i === 0 || line.startsWith("  note:") ? "    " : " ".repeat(21)))
    .join("\n");
}

/** One line for a hook problem: a module that did not load, a handler that threw or returned a bad result. */
export function hookErrorLine(error: HookError): string {
  if (error.event === "load") return `hook ${error.extension}: ${error.message}`;
  if (error.extension === "(hook)") return `hook (${error.event}): ${error.message}`;
  return `hook ${error.extension} failed in ${error.event} (skipped): ${error.message}`;
}

/** A model's failure as one line that says what failed once ("Compaction failed: 401 …"). */
function failedAs(what: string): (error: unknown) => never {
  return (error) => {
    if (error instanceof CommandError && error.code === "model_error") throw new CommandError(failureLine(what, error.message), error.code);
    throw error;
  };
}

/**
 * The progress line while the model has sent nothing: "Waiting for the model's first token… 42 s".
 * Rounded, not floored: the once-a-second tick runs on the event loop's cached clock and may come a
 * few milliseconds before the second is full by performance.now().
 */
export function waitingLine(waitedMs: number, writer: SummaryWriter = "model"): string {
  const seconds = Math.round(waitedMs / 1000);
  if (writer === "offline") return OFFLINE_WRITING;
  return writer === "remote" ? remoteWaitingText(seconds) : `Waiting for the model's first token… ${seconds} s`;
}

/** Why a command ended without its result: the hooks that were running, if any. */
function neverFinishedLine(running: JobHooksDto | null): string {
  const what =
    running === null
      ? "the command never finished (it waited for something that nothing settles)"
      : `the ${running.event} ${running.files.length === 1 ? `hook ${running.files[0]}` : `hooks (${running.files.join(", ")})`} never finished (its handler returned a promise that nothing settles)`;
  return `${what}; nothing was saved`;
}

/** What a job:started or job:hooks event of the session says of its hooks; undefined: nothing. */
function hooksTold<E extends EventName>(name: E, payload: Events[E], sessionId: string): JobHooksDto | null | undefined {
  if (name === "job:started") {
    const started = payload as Events["job:started"];
    return started.sessionId === sessionId ? started.hooks : undefined;
  }
  if (name !== "job:hooks") return undefined;
  const told = payload as Events["job:hooks"];
  return told.sessionId === sessionId ? told.hooks : undefined;
}

/**
 * Runs a long request; Ctrl+C asks the job to stop, and the streamed text goes to a terminal.
 * Hook problems (modules that did not load, handlers that failed) are said on stderr as they come.
 * `writer`: who is waited for until the first text comes (null: nobody, a move without a summary).
 */
export async function withCancel<T>(
  cli: CliContext,
  sessionId: string,
  abort: "compaction:abort" | "navigation:abort" | "chat:abort",
  run: () => Promise<T>,
  writer: SummaryWriter | null = "model",
): Promise<T> {
  const { hooks } = cli.api.ctx;
  await cli.api.ctx.hooksReady;
  for (const error of hooks.errors) cli.io.err(hookErrorLine(error));
  const stopHookErrors = hooks.onError((error) => cli.io.err(hookErrorLine(error)));
  const onSigint = () => {
    cli.io.err("cancelling…");
    void cli.api.call(abort, { sessionId });
  };
  // Until the model's first token (again after a retry): how long the wait has lasted.
  let waitingSince: number | null = performance.now();
  // While a compaction's or branch summary's hooks run: which, and since when (no model is asked yet).
  let hooksAt: { hooks: JobHooksDto; since: number } | null = null;
  const seconds = (since: number) => Math.round((performance.now() - since) / 1000);
  const stopProgress = showProgress(
    cli,
    (name, payload) => {
      // Its hooks at work: as it starts (when handlers are registered), then as they go on.
      const told = hooksTold(name, payload, sessionId);
      if (told !== undefined) {
        // Done without a summary: the summarizer is asked now. A hook that wrote it: none is.
        waitingSince = told === null ? performance.now() : null;
        hooksAt = told?.status === "running" ? { hooks: told, since: performance.now() } : null;
        return told === null ? null : hooksLine(told, told.status === "running" ? 0 : undefined);
      }
      // The retry's request goes out after its delay (the chat command says so on stderr).
      if (name === "chat:retry-started" && "delayMs" in payload) waitingSince = performance.now() + payload.delayMs;
      if (name === "job:progressed" && "label" in payload && payload.text) {
        waitingSince = null;
        return `${payload.label}: ${payload.text.length} characters`;
      }
      if (name === "chat:progressed" && "text" in payload && typeof payload.text === "string") {
        if (payload.text === "") return null;
        waitingSince = null;
        return `Replying: ${payload.text.length} characters`;
      }
      return null;
    },
    () => {
      if (hooksAt !== null) return hooksLine(hooksAt.hooks, seconds(hooksAt.since));
      if (writer === null || waitingSince === null || performance.now() < waitingSince) return null;
      return waitingLine(performance.now() - waitingSince, writer);
    },
  );
  // Which hooks run now, on a terminal or not: named if the process runs out of work meanwhile.
  let running: JobHooksDto | null = null;
  const stopHooksWatch = cli.api.ctx.events.subscribe((name, payload) => {
    const told = hooksTold(name, payload, sessionId);
    if (told !== undefined) running = told?.status === "running" ? told : null;
  });
  // Nothing left to wait for and no result: a promise nothing settles (a hook's). Node would end
  // with exit code 13 and a warning about main/cli.ts; say what never finished instead.
  const onDrained = () => {
    cli.io.err(`canopy: error: ${neverFinishedLine(running)}`);
    process.exit(1);
  };
  process.on("SIGINT", onSigint);
  process.on("beforeExit", onDrained);
  try {
    return await run();
  } finally {
    process.off("beforeExit", onDrained);
    stopHooksWatch();
    process.off("SIGINT", onSigint);
    stopProgress();
    stopHookErrors();
  }
}

export async function runPipelineCommand(cli: CliContext, parsed: ParsedCommand): Promise<boolean> {
  const { options } = parsed;
  switch (parsed.command) {
    case "compact": {
      cli.requireNoExtra(1);
      const sessionId = await cli.resolveSession(parsed.positionals[0]);
      const base = {
        sessionId,
        ...(options.leaf === undefined ? {} : { leafId: options.leaf }),
        ...(options.keepRecentTokens === undefined ? {} : { keepRecentTokens: options.keepRecentTokens }),
      };
      if (options.dryRun) {
        const plan = await cli.request("compaction:preview", base);
        cli.io.out(options.json ? toJson(planAsJson(plan), 2) : renderPlan(plan, cli.io.columns));
        return true;
      }
      const input = options.instructions === undefined ? base : { ...base, customInstructions: options.instructions };
      const writer = summaryWriterOf("compaction", await cli.request("settings:get", {}));
      const result = await withCancel(
        cli,
        sessionId,
        "compaction:abort",
        () => cli.request("compaction:run", input).catch(failedAs("Compaction")),
        writer,
      );
      cli.io.out(
        options.json
          ? toJson(result, 2)
          : `${fitText(`Compacted: entry ${result.entryId}, first kept ${result.firstKeptEntryId}, tokens before ${result.tokensBefore}`, cli.io.columns, "  ")}\n\n${result.summary}`,
      );
      if (result.cutOff) cli.io.err(cutOffLine(result.cutOff));
      return true;
    }
    case "navigate": {
      cli.requireNoExtra(2);
      // Both only shape a branch summary: without one they were ignored, the move made all the same.
      if (options.replacePrompt && (!options.summarize || options.instructions === undefined))
        throw new UsageError(
          '--replace-prompt uses the instructions instead of the branch-summary prompt: add --summarize --instructions "…"',
        );
      if (options.instructions !== undefined && !options.summarize)
        throw new UsageError("--instructions are for the branch summary: add --summarize");
      const sessionId = await cli.resolveSession(parsed.positionals[0]);
      const targetId = parsed.positionals[1];
      if (!targetId) throw new UsageError("missing <entryId> to navigate to");
      // A move without a summary waits for nobody.
      const writer = options.summarize ? summaryWriterOf("branch-summary", await cli.request("settings:get", {})) : null;
      // Whether the branch left gives the summary anything to read (as the app's move dialog asks).
      const preview = options.summarize ? await cli.request("navigation:preview", { sessionId, targetId }) : null;
      const result = await withCancel(
        cli,
        sessionId,
        "navigation:abort",
        () =>
          cli
            .request("navigation:navigate", {
              sessionId,
              targetId,
              summarize: options.summarize,
              ...(options.instructions === undefined ? {} : { customInstructions: options.instructions }),
              ...(options.replacePrompt ? { replacePrompt: true } : {}),
            })
            .catch(failedAs("Branch summary")),
        writer,
      );
      if (options.json) cli.io.out(toJson(result, 2));
      // Cancelled (Ctrl+C, or by a hook) exits 1, as a cancelled compaction or chat turn does.
      if (result.cancelled) {
        throw new CommandError(
          result.aborted ? "Branch summarization cancelled; nothing changed." : "Navigation cancelled by a hook; nothing changed.",
        );
      }
      // The view leaf itself: nothing to do, said as the app (and the agents' /tree) say it.
      const already = targetId === result.oldLeafId;
      // A summary asked for and none written by a move that went through: the branch left had no
      // entries of its own (down the view leaf's own branch, or to the user message just below
      // it, which resumes where the leaf is), the one case navigate writes none.
      if (options.summarize && result.summaryEntryId === null && !already)
        cli.io.err("no branch summary: the branch you leave has no entries of its own");
      // Written all the same, as the agents' /tree and the app's dialog do (undo takes it back): a
      // summary with no message to read only says so, and a script cannot tell it from a real one.
      const left = preview?.entriesToSummarize.length ?? 0;
      if (result.summaryEntryId !== null && !result.fromExtension && left > 0 && preview?.summaryHasMessages === false)
        cli.io.err(
          `branch summary ${result.summaryEntryId} only says “No content to summarize”: the branch you leave has ${counted(left, "entry", "entries")}, none of them a message`,
        );
      if (result.cutOff) cli.io.err(cutOffLine(result.cutOff));
      if (!options.json && already) {
        const line = `Already at this point: the view leaf is ${targetId}; nothing changed.`;
        cli.io.out(fitText(line, cli.io.columns, "  "));
      } else if (!options.json) {
        const summary = result.summaryEntryId ? `, branch summary ${result.summaryEntryId}` : "";
        const editor = result.editorText ? `\nEditor text: ${result.editorText}` : "";
        const was = result.newLeafId === result.oldLeafId ? "unchanged" : `was ${result.oldLeafId ?? "(empty)"}`;
        const line = `View leaf: ${result.newLeafId ?? "(empty)"} (${was})${summary}`;
        cli.io.out(`${fitText(line, cli.io.columns, "  ")}${editor}`);
      }
      return true;
    }
    case "prune": {
      cli.requireNoExtra(1);
      const sessionId = await cli.resolveSession(parsed.positionals[0]);
      const leaf = options.leaf === undefined ? {} : { leafId: options.leaf };
      // A restore is the whole session's, and has no dry run: with either it ran all the same.
      if (options.restore && (options.dryRun || options.leaf !== undefined))
        throw new UsageError(`--restore puts back every pruned output of the session; it takes no ${options.dryRun ? "--dry-run" : "--leaf"}`);
      if (options.restore) {
        const result = await cli.request("pruning:restore", { sessionId });
        const line = `Restored ${counted(result.prunedCount, "tool output")}.`;
        cli.io.out(options.json ? toJson(result, 2) : fitText(line, cli.io.columns, "  "));
      } else if (options.dryRun) {
        const plan = await cli.request("pruning:preview", { sessionId, ...leaf, listCandidates: true });
        cli.io.out(
          options.json
            ? toJson(plan, 2)
            : [
                `${counted(plan.candidateCount, "tool output")} could be pruned, saving ~${plan.tokensSaved} tokens${plan.willPrune ? "" : " (not enough to prune)"}`,
                ...(plan.candidates ?? []).map((c) => `  ${c.entryId} ${c.toolName} ~${c.tokens} tokens`),
                ...(plan.reason ? [plan.reason] : []),
              ]
                .map((line) => fitText(line, cli.io.columns, "    "))
                .join("\n"),
        );
      } else {
        const result = await cli.request("pruning:apply", { sessionId, ...leaf });
        cli.io.out(
          options.json
            ? toJson(result, 2)
            : result.prunedCount === 0
              ? "Nothing pruned (see `prune --dry-run`)."
              : fitText(
                  `Pruned ${counted(result.prunedCount, "tool output")}, ~${result.tokensSaved} tokens saved. Undo with \`prune --restore\`.`,
                  cli.io.columns,
                  "  ",
                ),
        );
      }
      return true;
    }
    case "settings": {
      const [action, key, ...rest] = parsed.positionals;
      if (action === "get" || action === undefined) {
        const settings = await cli.request("settings:get", {});
        if (key === undefined) cli.io.out(toJson(settings, 2));
        else {
          const value = getSettingAt(settings, key);
          const known = SETTING_KEYS.includes(key) || (value !== null && typeof value === "object");
          if (!known) throw unknownSetting(key);
          // A model subkey reads as null while no model is configured.
          cli.io.out(toJson(value ?? null, 2));
        }
        return true;
      }
      if (action === "set") {
        if (key === undefined || rest.length === 0) throw new UsageError("usage: settings set <key> <value>");
        // As for `settings get`: a key that is no setting is a usage error (exit 2), not a failure.
        if (!SETTING_KEYS.includes(key)) throw unknownSetting(key);
        const text = rest.join(" ");
        let value: unknown = text;
        try {
          value = JSON.parse(text);
        } catch (error) {
          // Plain text (e.g. a URL or a model id) is taken as a string; an object or array that
          // does not parse is a mistake in the JSON, not a string.
          if (/^\s*[[{]/.test(text)) throw new CommandError(`${key}: the value is not valid JSON (${reasonOf(error)})`);
        }
        const settings = await cli.request("settings:set", { key, value });
        const now = getSettingAt(settings, key) ?? null;
        // --json: the new value as JSON, as `settings get <key>` prints it (not the text line).
        cli.io.out(options.json ? toJson(now, 2) : `${key} = ${toJson(now)}`);
        return true;
      }
      throw new UsageError(`settings takes "get" or "set", not "${action}"`);
    }
    default:
      return false;
  }
}

/**
 * A key `settings` does not take. The agent folders are stored in settings as `library.folders`
 * (README says so) but read and set with a command of their own: said instead of "unknown".
 */
function unknownSetting(key: string): UsageError {
  if (key === "library.folders")
    return new UsageError(
      "the agent session folders are read and set with `canopy folders` (`folders set <dir>…`, `folders reset`)",
    );
  return new UsageError(`unknown setting "${key}" (known: ${SETTING_KEYS.join(", ")})`);
}
