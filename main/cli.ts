/**
 * The `canopy` command line: the same contract handlers as the app, called in process.
 * Prints only the command's own output on stdout; any failure is one line on stderr and a
 * non-zero exit code (1: the command failed, 2: bad usage).
 */
import { existsSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { searchIndexingNote } from "../core/api/contract.ts";
import { searchSyntaxNote } from "../core/text/search-syntax.ts";
import { counted } from "../core/session/describe.ts";
import { planRequestFor } from "../core/session/request-messages.ts";
import { type Api, createApi } from "./api/dispatch.ts";
import { createAppContext } from "./app-context.ts";
import {
  COMMAND_OPTIONS,
  closestCommand,
  type ParsedCommand,
  parseCommandLine,
  USAGE,
  UsageError,
} from "./cli/args.ts";
import { runChatCommand } from "./cli/chat-command.ts";
import { type CliContext, type CliIo, CommandError, createCliContext } from "./cli/context.ts";
import { runEditCommand } from "./cli/edit-commands.ts";
import { exportToOutput } from "./cli/export-stdout.ts";
import { runFolderCommand } from "./cli/folder-commands.ts";
import { runPipelineCommand } from "./cli/pipeline-commands.ts";
import { importProgress, showProgress, showSearchIndexing } from "./cli/progress.ts";
import { renderContext, renderImportReport, renderSearchHits, renderSessionList } from "./cli/render.ts";
import { showToOutput } from "./cli/show-stdout.ts";
import { fileErrorReason } from "./store/errors.ts";
import { resolveLibraryPath } from "./store/library-file.ts";
import { defaultDataFolder } from "./store/open.ts";
import { writeJsonList } from "./cli/json-out.ts";
import { lineWriter, terminalText } from "./cli/terminal-text.ts";
import { outputColumns } from "./cli/terminal-width.ts";
import { cutToColumns, fitText } from "../core/text/columns.ts";
import { toJson } from "../core/text/json-deep.ts";

export type { CliIo } from "./cli/context.ts";

/** What to do when one message of `context --json` is too long for a string. */
const CONTEXT_INSTEAD =
  "export the session with `canopy export <session> --out <file>` (written as it is read), or ask for an earlier leaf (--leaf)";

async function runLibraryCommand(cli: CliContext, parsed: ParsedCommand): Promise<boolean> {
  const { options } = parsed;
  switch (parsed.command) {
    case "import": {
      cli.requireNoExtra(1);
      const target = parsed.positionals[0];
      if (options.agentFolders && target) {
        throw new UsageError("--agent-folders imports the agent folders: give no path");
      }
      if (!target && !options.agentFolders) {
        throw new UsageError("missing <file|dir> to import (or --agent-folders)");
      }
      if (target && !existsSync(target)) throw new CommandError(`not found: ${target}`);
      const stopProgress = showProgress(cli, importProgress);
      const report = await (target
        ? cli.request("library:import", { path: path.resolve(target) })
        : cli.request("library:import-default-folders", {})
      ).finally(stopProgress);
      cli.io.out(options.json ? toJson(report, 2) : renderImportReport(report, cli.io.columns));
      if (report.failed > 0 && report.imported + report.updated + report.unchanged === 0) {
        throw new CommandError(`nothing could be imported from ${target ?? "the agent folders"}`);
      }
      // A file named on its own that is no session (empty, not JSON, no header) is bad input.
      const skippedFile = report.files.length === 1 && report.files[0]?.status === "skipped";
      if (target && skippedFile && statSync(target).isFile()) {
        throw new CommandError(`${target} is not a session file (${report.files[0]?.reason ?? "skipped"})`);
      }
      // Like cp or rsync: the other files are imported, and the exit code says not all were.
      if (report.failed > 0) {
        throw new CommandError(`${counted(report.failed, "file")} could not be imported (listed above)`);
      }
      return true;
    }
    case "list": {
      cli.requireNoExtra(0);
      const sessions = await cli.request("library:list", options.deleted ? { deleted: true } : {});
      cli.io.out(
        options.json
          ? toJson(sessions, 2)
          : renderSessionList(sessions, options.deleted === true, cli.io.columns),
      );
      return true;
    }
    case "show": {
      cli.requireNoExtra(1);
      const sessionId = await cli.resolveSession(parsed.positionals[0]);
      // Streamed from the session's outline: session:get would parse and hold every entry.
      await showToOutput(cli, sessionId);
      return true;
    }
    case "context": {
      cli.requireNoExtra(1);
      if (options.request && !options.json) {
        throw new UsageError("--request goes with --json (the text form already marks what the request adds and drops)");
      }
      const sessionId = await cli.resolveSession(parsed.positionals[0]);
      const view = await cli.request(
        "context:get",
        // --json is the message array as sent: images from the agent's blob store included.
        {
          sessionId,
          ...(options.leaf === undefined ? {} : { leafId: options.leaf }),
          blobImages: options.json === true,
        },
      );
      if (options.json && options.request) {
        // The request-level list (SPEC §3.6): the same planRequest the view's annotations come from.
        const plan = planRequestFor(view.messages, view.request.target, { blockImages: view.request.blockImages });
        await writeJsonList(cli.io, plan.messages, "a message of the request", CONTEXT_INSTEAD);
      } else if (options.json) {
        await writeJsonList(cli.io, view.messages, "a message of the LLM view", CONTEXT_INSTEAD);
      } else {
        cli.io.out(renderContext(view, cli.io.columns));
      }
      return true;
    }
    case "export": {
      cli.requireNoExtra(1);
      const sessionId = await cli.resolveSession(parsed.positionals[0]);
      const input = {
        sessionId,
        ...(options.leaf === undefined ? {} : { leafId: options.leaf }),
        ...(options.withoutArchived ? { withoutArchived: true } : {}),
        ...(options.originals ? { originals: true } : {}),
        ...(options.force ? { confirmLiveFolder: true } : {}),
      };
      // stdout: written as the rows are read (export-stdout.ts).
      const result =
        options.out === undefined
          ? await exportToOutput(cli, input)
          : await cli.request("session:export", { ...input, outPath: path.resolve(options.out) });
      if (result.reimportedEntries) {
        cli.io.err(`re-imported ${counted(result.reimportedEntries, "new entry", "new entries")} from the session file first`);
      }
      if (result.path) cli.io.err(`wrote ${result.lines} lines to ${result.path}`);
      return true;
    }
    case "search": {
      const query = parsed.positionals.join(" ").trim();
      if (!query) throw new UsageError("missing <query>");
      const stopProgress = showSearchIndexing(cli);
      const { hits, indexing } = await cli
        .request("library:search", { query, limit: options.limit ?? 20 })
        .finally(stopProgress);
      if (indexing !== null) cli.io.err(searchIndexingNote(indexing));
      const syntax = searchSyntaxNote(query);
      if (syntax !== null) cli.io.err(syntax);
      cli.io.out(options.json ? toJson(hits, 2) : renderSearchHits(hits, cli.io.columns));
      return true;
    }
    default:
      return false;
  }
}

/** Commands whose output depends on the prompt templates (context framing, summaries, replies). */
const PROMPT_COMMANDS = new Set(["context", "compact", "navigate", "chat"]);

/** An override file that is not used (it lacks a placeholder, cannot be read) is said, not skipped silently. */
function warnUnusedPromptOverrides(api: Api, io: CliIo, command: string): void {
  if (!PROMPT_COMMANDS.has(command)) return;
  for (const template of Object.values(api.ctx.prompts.templates)) {
    if (template.warning !== undefined) io.err(`prompt override not used: ${template.warning}`);
  }
  for (const stray of api.ctx.prompts.strayOverrides) io.err(`prompt override not used: ${stray.warning}`);
}

/** The library file a command opens: `--db`, else CANOPY_DB, else the data folder's (open.ts). */
function libraryPathOf(db: string | undefined): string {
  const given = db ?? process.env.CANOPY_DB;
  return given ? resolveLibraryPath(given) : path.join(defaultDataFolder(), "library.db");
}

/**
 * On a terminal, a library the command just created is said (a mistyped `--db` would otherwise
 * show the demo sessions as if they were the user's library); piped output stays the command's own.
 */
function sayNewLibrary(io: CliIo, library: string, isNew: boolean): void {
  if (!isNew || !io.isTerminal || !existsSync(library)) return;
  const demo = process.env.CANOPY_NO_DEMO === "1" ? "" : " with the demo sessions (CANOPY_NO_DEMO=1 leaves them out)";
  io.err(`canopy: created a new library at ${library}${demo}`);
}

export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let parsed: ParsedCommand;
  try {
    parsed = parseCommandLine(argv);
  } catch (error) {
    io.err(`canopy: ${(error as Error).message} (see \`canopy help\`)`);
    return 2;
  }
  if (parsed.options.help || parsed.command === "help") {
    // Written for 80 columns; a narrower terminal gets each line wrapped under its own indent.
    const lines = USAGE.split("\n").map((line) => {
      const indent = /^ */.exec(line)?.[0] ?? "";
      return fitText(line, io.columns, indent.length >= 6 ? indent : `${indent}  `);
    });
    io.out(lines.join("\n"));
    return 0;
  }
  let api: Api | undefined;
  // Opened when the command first needs it: a usage error found before creates no library.
  const openApi = (): Api => {
    if (api !== undefined) return api;
    const library = libraryPathOf(parsed.options.db);
    const isNew = library !== ":memory:" && !existsSync(library);
    api = createApi(createAppContext({ dbPath: parsed.options.db }));
    sayNewLibrary(io, library, isNew);
    warnUnusedPromptOverrides(api, io, parsed.command);
    return api;
  };
  try {
    if (!Object.hasOwn(COMMAND_OPTIONS, parsed.command)) {
      const meant = closestCommand(parsed.command);
      throw new UsageError(
        `unknown command "${parsed.command}"${meant === undefined ? "" : ` (did you mean ${meant}?)`}`,
      );
    }
    const cli = createCliContext(openApi, io, parsed);
    const handled =
      (await runLibraryCommand(cli, parsed)) ||
      (await runPipelineCommand(cli, parsed)) ||
      (await runEditCommand(cli, parsed)) ||
      (await runChatCommand(cli, parsed)) ||
      (await runFolderCommand(cli, parsed));
    if (!handled) throw new UsageError(`unknown command "${parsed.command}"`);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`canopy: ${error.message} (see \`canopy help\`)`);
      return 2;
    }
    const message = error instanceof Error ? error.message : String(error);
    io.err(`canopy: error: ${message.split("\n")[0]}`);
    return 1;
  } finally {
    api?.ctx.db.close();
  }
}

const invokedDirectly =
  process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (invokedDirectly) {
  // `npm run canopy` runs in the package folder; relative paths mean where the command was typed.
  const typedIn = process.env.INIT_CWD;
  if (process.env.npm_lifecycle_event === "canopy" && typedIn && path.isAbsolute(typedIn)) {
    process.chdir(typedIn);
  }
  // A reader that stops early (`canopy context … | head`) is not an error: stop quietly. Any other
  // failure to write the output (stdout redirected to a file on a full disk) is one line and exit 1.
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
    process.stderr.write(`canopy: error: could not write the output: ${fileErrorReason(error)}\n`);
    process.exit(1);
  });
  // Messages that cannot be written (stderr gone or full) leave the exit code as the command set it.
  process.stderr.on("error", () => {});
  const errColumns = outputColumns(process.stderr, process.env);
  const code = await runCli(process.argv.slice(2), {
    out: lineWriter(process.stdout),
    // Waits for a full pipe to drain; a reader gone (EPIPE) ends the process above.
    write: (chunk) => {
      const shown = process.stdout.isTTY === true ? terminalText(chunk) : chunk;
      if (process.stdout.write(shown)) return;
      return new Promise<void>((resolve) => process.stdout.once("drain", resolve));
    },
    err: lineWriter(process.stderr, errColumns),
    // Only on a terminal: the summary or reply written so far, made safe, and cut to one line of it
    // (a line that wrapped would leave its first part behind when the next one is written).
    progress: (text) => {
      const shown = terminalText(text);
      const width = process.stderr.columns ?? 0;
      process.stderr.write(`\r\x1b[2K${width > 1 ? cutToColumns(shown, width - 1) : shown}`);
    },
    isTerminal: process.stderr.isTTY === true,
    columns: outputColumns(process.stdout, process.env),
  });
  process.exitCode = code;
}
