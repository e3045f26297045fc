/**
 * What every CLI command gets: the in-process API, the output streams, and helpers to call a
 * channel (failures become one-line errors) and to resolve a `<session>` argument.
 */
import { existsSync, statSync } from "node:fs";
import path from "node:path";
import type { Channel, RequestInput, RequestOutput } from "../../core/api/contract.ts";
import type { Api } from "../api/dispatch.ts";
import { type ParsedCommand, UsageError } from "./args.ts";

export interface CliIo {
  out(text: string): void;
  /**
   * Output written as it is, no newline added (a terminal gets control characters made
   * visible); resolves when the stream takes more (backpressure). Without it: `out`.
   */
  write?(chunk: string): Promise<void> | void;
  err(text: string): void;
  /** A transient status line (terminals only). */
  progress(text: string): void;
  isTerminal: boolean;
  /**
   * The width `out`'s human-readable text is fitted to (terminal-width.ts): the terminal's, or
   * COLUMNS. Absent (piped, tests): written as it is. `--json` and session content never are.
   */
  columns?: number | undefined;
}

export type SessionScope = "listed" | "deleted" | "any";

/** A command failed for a reason the user can act on; printed as one line, exit code 1. */
export class CommandError extends Error {
  /** The API's error code when the API refused the request ("model_error", "not_found"…). */
  readonly code: string | undefined;
  constructor(message: string, code?: string) {
    super(message);
    this.code = code;
  }
}

export interface CliContext {
  api: Api;
  io: CliIo;
  request<C extends Channel>(channel: C, input: RequestInput<C>): Promise<RequestOutput<C>>;
  /** `scope`: which sessions the id may name (default the listed ones, not the deleted). */
  resolveSession(arg: string | undefined, scope?: SessionScope): Promise<string>;
  requireNoExtra(count: number): void;
}

/** The request fields a user gives on the command line, as the help names them. */
const FIELD_NAMES: Readonly<Record<string, string>> = {
  query: "the query",
  title: "the title",
  text: "the text",
  label: "the label",
  instructions: "--instructions",
  leafId: "--leaf",
  entryId: "<entryId>",
  outPath: "--out",
};

/**
 * A refused request in the command line's words: "library:search: query: must be at most 1,000
 * characters long" → "the query must be at most 1,000 characters long".
 */
function inCliWords(channel: string, message: string): string {
  const said = message.startsWith(`${channel}: `) ? message.slice(channel.length + 2) : message;
  const field = /^([A-Za-z]+): /.exec(said);
  const name = field?.[1] === undefined ? undefined : FIELD_NAMES[field[1]];
  return name === undefined || field === null ? said : `${name} ${said.slice(field[0].length)}`;
}

/** `text` as one word for a POSIX shell, to copy from a hint: quoted when it needs it. */
function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/u.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}

/**
 * A folder given as `<session>` (`show ~/.pi/agent/sessions`) is said as such, with the command
 * that imports it; a pipe or device (`/dev/stdin`) too. Either was "file not found".
 */
function refuseNonFile(arg: string): void {
  const stat = statSync(arg, { throwIfNoEntry: false });
  if (stat === undefined || stat.isFile()) return;
  throw new CommandError(
    stat.isDirectory()
      ? `${arg} is a folder, not a session: give a session id or a .jsonl file (\`canopy import ${shellWord(arg)}\` imports the sessions below it)`
      : `${arg} is not a file but a pipe or device: save the session to a file and give that`,
  );
}

/**
 * `openApi` opens the library on first use, so a command refused before it needs the library (a
 * usage error: a missing argument, an unknown command) creates none.
 */
export function createCliContext(openApi: () => Api, io: CliIo, parsed: ParsedCommand): CliContext {
  const request = async <C extends Channel>(channel: C, input: RequestInput<C>): Promise<RequestOutput<C>> => {
    const result = await openApi().call(channel, input);
    if (!result.ok) {
      const { code, message } = result.error;
      throw new CommandError(code === "invalid_input" ? inCliWords(channel, message) : message, code);
    }
    return result.value;
  };

  /** Throws when `id` is exactly a session's that the command does not take (deleted, or not). */
  const refuseOutOfScope = async (id: string, scope: "listed" | "deleted") => {
    const others = await request("library:list", scope === "listed" ? { deleted: true } : {});
    if (!others.some((session) => session.id === id)) return;
    throw new CommandError(
      scope === "listed"
        ? `session ${id} is deleted from the library (\`canopy undelete ${id}\` brings it back)`
        : `session ${id} is not deleted (see \`canopy list\`)`,
    );
  };

  /** A session id, a unique id prefix, or a .jsonl path (imported first) → a session id. */
  const resolveSession = async (arg: string | undefined, scope: SessionScope = "listed"): Promise<string> => {
    if (!arg) throw new UsageError("missing <session> (a session id or a .jsonl file)");
    if (scope === "deleted" && (arg.endsWith(".jsonl") || existsSync(arg))) {
      throw new UsageError(`give a session id, not a file (importing the file itself restores it: canopy import ${arg})`);
    }
    if (existsSync(arg) && statSync(arg).isFile()) {
      const report = await request("library:import", { path: path.resolve(arg) });
      const file = report.files[0];
      if (!file?.sessionId) throw new CommandError(`${arg}: ${file?.reason ?? "not a session file"}`);
      return file.sessionId;
    }
    const pathLike = arg.endsWith(".jsonl") || arg.includes("/") || arg.includes(path.sep);
    if (pathLike) refuseNonFile(arg);
    const sessions = [
      ...(scope === "deleted" ? [] : await request("library:list", {})),
      ...(scope === "listed" ? [] : await request("library:list", { deleted: true })),
    ];
    const exact = sessions.find((session) => session.id === arg);
    if (exact) return exact.id;
    // No such file, and no session of that very id (a header id may hold "/": "team/fix-1").
    if (pathLike) throw new CommandError(`file not found: ${arg}`);
    // The full id of a session out of scope is never the prefix of another's ("<id>~demo").
    if (scope !== "any") await refuseOutOfScope(arg, scope);
    const matches = sessions.filter((session) => session.id.startsWith(arg));
    if (matches.length === 1 && matches[0]) return matches[0].id;
    if (matches.length > 1) {
      const shown = matches.map((session) => session.id).sort().slice(0, 3);
      const more = matches.length > shown.length ? ", …" : "";
      throw new CommandError(`"${arg}" matches ${matches.length} sessions (${shown.join(", ")}${more}); give more of the id`);
    }
    // A bare name is an id first (a folder "abc" in the current one does not hide session abc…).
    refuseNonFile(arg);
    throw new CommandError(
      scope === "deleted"
        ? `no deleted session with id "${arg}" (see \`canopy list --deleted\`)`
        : `no session with id "${arg}" in the library (see \`canopy list\`)`,
    );
  };

  return {
    get api() {
      return openApi();
    },
    io,
    request,
    resolveSession,
    requireNoExtra(count) {
      if (parsed.positionals.length > count) {
        throw new UsageError(`unexpected argument "${parsed.positionals[count]}" for ${parsed.command}`);
      }
    },
  };
}
