/**
 * The `canopy` command line: the same contract handlers as the app, called in process.
 * Prints only the command's own output on stdout; any failure is one line on stderr and a
 * non-zero exit code (1: the command failed, 2: bad usage).
 */
import { existsSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Channel, RequestInput, RequestOutput } from "../core/api/contract.ts";
import { createAppContext } from "./app-context.ts";
import { type Api, createApi } from "./api/dispatch.ts";
import { type ParsedCommand, parseCommandLine, USAGE, UsageError } from "./cli/args.ts";
import { renderContext, renderImportReport, renderSearchHits, renderSessionList } from "./cli/render.ts";
import { renderTree } from "./cli/render-tree.ts";

export interface CliIo {
  out(text: string): void;
  err(text: string): void;
}

class CommandError extends Error {}

async function request<C extends Channel>(api: Api, channel: C, input: RequestInput<C>): Promise<RequestOutput<C>> {
  const result = await api.call(channel, input);
  if (!result.ok) throw new CommandError(result.error.message);
  return result.value;
}

/** A session id, a unique id prefix, or a .jsonl path (imported first) → a session id. */
async function resolveSession(api: Api, arg: string | undefined): Promise<string> {
  if (!arg) throw new UsageError("missing <session> (a session id or a .jsonl file)");
  const looksLikePath = arg.endsWith(".jsonl") || arg.includes("/") || arg.includes(path.sep);
  if (existsSync(arg) && statSync(arg).isFile()) {
    const report = await request(api, "library:import", { path: arg });
    const file = report.files[0];
    if (!file?.sessionId) throw new CommandError(`${arg}: ${file?.reason ?? "not a session file"}`);
    return file.sessionId;
  }
  if (looksLikePath) throw new CommandError(`file not found: ${arg}`);
  const sessions = await request(api, "library:list", {});
  const exact = sessions.find((session) => session.id === arg);
  if (exact) return exact.id;
  const matches = sessions.filter((session) => session.id.startsWith(arg));
  if (matches.length === 1 && matches[0]) return matches[0].id;
  if (matches.length > 1) throw new CommandError(`"${arg}" matches ${matches.length} sessions; give more of the id`);
  throw new CommandError(`no session with id "${arg}" in the library (see \`canopy list\`)`);
}

function requireNoExtra(parsed: ParsedCommand, count: number): void {
  if (parsed.positionals.length > count) {
    throw new UsageError(`unexpected argument "${parsed.positionals[count]}" for ${parsed.command}`);
  }
}

async function runCommand(api: Api, parsed: ParsedCommand, io: CliIo): Promise<void> {
  const { options } = parsed;
  switch (parsed.command) {
    case "import": {
      requireNoExtra(parsed, 1);
      const target = parsed.positionals[0];
      if (!target) throw new UsageError("missing <file|dir> to import");
      if (!existsSync(target)) throw new CommandError(`not found: ${target}`);
      const report = await request(api, "library:import", { path: path.resolve(target) });
      io.out(options.json ? JSON.stringify(report, null, 2) : renderImportReport(report));
      if (report.failed > 0 && report.imported + report.updated + report.unchanged === 0) {
        throw new CommandError(`nothing could be imported from ${target}`);
      }
      return;
    }
    case "list": {
      requireNoExtra(parsed, 0);
      const sessions = await request(api, "library:list", {});
      io.out(options.json ? JSON.stringify(sessions, null, 2) : renderSessionList(sessions));
      return;
    }
    case "show": {
      requireNoExtra(parsed, 1);
      const sessionId = await resolveSession(api, parsed.positionals[0]);
      const detail = await request(api, "session:get", { sessionId });
      io.out(renderTree(detail));
      return;
    }
    case "context": {
      requireNoExtra(parsed, 1);
      const sessionId = await resolveSession(api, parsed.positionals[0]);
      const view = await request(
        api,
        "context:get",
        options.leaf === undefined ? { sessionId } : { sessionId, leafId: options.leaf },
      );
      io.out(options.json ? JSON.stringify(view.messages, null, 2) : renderContext(view));
      return;
    }
    case "export": {
      requireNoExtra(parsed, 1);
      const sessionId = await resolveSession(api, parsed.positionals[0]);
      const result = await request(api, "session:export", {
        sessionId,
        ...(options.leaf === undefined ? {} : { leafId: options.leaf }),
        ...(options.out === undefined ? {} : { outPath: path.resolve(options.out) }),
      });
      if (result.path) io.err(`wrote ${result.lines} lines to ${result.path}`);
      else io.out((result.text ?? "").replace(/\n$/, ""));
      return;
    }
    case "search": {
      const query = parsed.positionals.join(" ").trim();
      if (!query) throw new UsageError("missing <query>");
      const hits = await request(api, "library:search", { query, limit: options.limit ?? 20 });
      io.out(options.json ? JSON.stringify(hits, null, 2) : renderSearchHits(hits));
      return;
    }
    case "help":
      io.out(USAGE);
      return;
    default:
      throw new UsageError(`unknown command "${parsed.command}"`);
  }
}

export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let parsed: ParsedCommand;
  try {
    parsed = parseCommandLine(argv);
  } catch (error) {
    io.err(`canopy: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  if (parsed.options.help) {
    io.out(USAGE);
    return 0;
  }
  if (parsed.command === "help") {
    io.out(USAGE);
    return 0;
  }
  let api: Api | undefined;
  try {
    api = createApi(createAppContext({ dbPath: parsed.options.db }));
    await runCommand(api, parsed, io);
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

const invokedDirectly = process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (invokedDirectly) {
  const code = await runCli(process.argv.slice(2), {
    out: (text) => process.stdout.write(text.endsWith("\n") ? text : `${text}\n`),
    err: (text) => process.stderr.write(text.endsWith("\n") ? text : `${text}\n`),
  });
  process.exitCode = code;
}
