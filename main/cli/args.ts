/**
 * Command-line parsing for `canopy`: a command, its positional arguments and its options,
 * with one-line usage errors (never a stack trace).
 */
import { parseArgs } from "node:util";
import { MAX_KEEP_RECENT_TOKENS, MAX_SEARCH_HITS } from "../../core/api/schemas.ts";

export class UsageError extends Error {}

export interface ParsedCommand {
  command: string;
  positionals: string[];
  options: {
    db?: string | undefined;
    leaf?: string | undefined;
    out?: string | undefined;
    json: boolean;
    limit?: number | undefined;
    instructions?: string | undefined;
    keepRecentTokens?: number | undefined;
    dryRun: boolean;
    summarize: boolean;
    replacePrompt: boolean;
    restore: boolean;
    yes: boolean;
    force: boolean;
    deleted: boolean;
    withoutArchived: boolean;
    originals: boolean;
    request: boolean;
    continue: boolean;
    agentFolders: boolean;
    help: boolean;
  };
}

export function parseCommandLine(argv: readonly string[]): ParsedCommand {
  refuseOptionsAfterEnd(argv);
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    throw new UsageError(argumentError(error));
  }
  const [command = "help", ...positionals] = parsed.positionals;
  refuseOptionsNotTaken(command, Object.keys(parsed.values));
  refuseEmptyPaths(parsed.values);
  const limit = wholeNumber("--limit", parsed.values.limit, MAX_SEARCH_HITS);
  const keepRecentTokens = wholeNumber(
    "--keep-recent-tokens",
    parsed.values["keep-recent-tokens"],
    MAX_KEEP_RECENT_TOKENS,
  );
  return {
    command,
    positionals,
    options: {
      db: parsed.values.db,
      leaf: parsed.values.leaf,
      out: parsed.values.out,
      json: parsed.values.json ?? false,
      limit,
      instructions: parsed.values.instructions,
      keepRecentTokens,
      dryRun: parsed.values["dry-run"] ?? false,
      summarize: parsed.values.summarize ?? false,
      replacePrompt: parsed.values["replace-prompt"] ?? false,
      restore: parsed.values.restore ?? false,
      yes: parsed.values.yes ?? false,
      force: parsed.values.force ?? false,
      deleted: parsed.values.deleted ?? false,
      withoutArchived: parsed.values["without-archived"] ?? false,
      originals: parsed.values.originals ?? false,
      request: parsed.values.request ?? false,
      continue: parsed.values.continue ?? false,
      agentFolders: parsed.values["agent-folders"] ?? false,
      help: parsed.values.help ?? false,
    },
  };
}

/**
 * The options each command takes besides --db and --help. Another one was silently ignored
 * (`show --json` printed text, `list --limit 3` every session, `compact --restore` a plan).
 */
export const COMMAND_OPTIONS: Readonly<Record<string, readonly string[]>> = {
  import: ["agent-folders", "json"],
  folders: ["json"],
  list: ["deleted", "json"],
  show: [],
  context: ["leaf", "json", "request"],
  export: ["out", "leaf", "without-archived", "originals", "force"],
  search: ["limit", "json"],
  compact: ["leaf", "instructions", "keep-recent-tokens", "dry-run", "json"],
  navigate: ["summarize", "instructions", "replace-prompt", "json"],
  prune: ["leaf", "dry-run", "restore", "json"],
  chat: ["leaf", "continue", "json"],
  fork: ["json"],
  archive: ["yes", "json"],
  unarchive: ["json"],
  rename: ["json"],
  label: ["json"],
  undo: ["json"],
  redo: ["json"],
  delete: ["json"],
  undelete: ["json"],
  settings: ["json"],
};

function refuseOptionsNotTaken(command: string, given: readonly string[]): void {
  const takes = COMMAND_OPTIONS[command];
  if (takes === undefined) return; // help, or an unknown command (said as such)
  const extra = given.filter((name) => name !== "db" && name !== "help" && !takes.includes(name));
  if (extra.length === 0) return;
  const list = extra.map((name) => `--${name}`).join(", ");
  const own = takes.length === 0 ? "no options" : takes.map((name) => `--${name}`).join(", ");
  throw new UsageError(`${command} does not take ${list} (it takes ${own})`);
}

/**
 * `--db ""`, `--out ""`, `--leaf ""` (an unset shell variable): the empty path was read as the
 * current folder ("… is a folder"), the empty leaf refused in the API's words.
 */
function refuseEmptyPaths(values: Readonly<Record<string, unknown>>): void {
  for (const name of ["db", "out", "leaf"]) {
    if (values[name] === "") throw new UsageError(`--${name} is empty: give a value (--${name} <value>)`);
  }
}

/**
 * An option of the CLI's own after "--" (`settings set k -- -5 --db lib.db`, as the unknown-option
 * hint puts a value there): it would be text — part of a setting's value, a chat message sent to
 * the model — and the command would run on the default library. Refused instead.
 */
function refuseOptionsAfterEnd(argv: readonly string[]): void {
  const end = argv.indexOf("--");
  if (end === -1) return;
  const long = new Set(Object.keys(OPTIONS).map((name) => `--${name}`));
  const short = new Set(Object.values(OPTIONS).flatMap((option) => ("short" in option ? [`-${option.short}`] : [])));
  const option = argv.slice(end + 1).find((arg) => long.has(arg.split("=")[0] as string) || short.has(arg));
  if (option === undefined) return;
  const name = option.split("=")[0] as string;
  throw new UsageError(`${name} after "--" is text there, not an option: put the options before "--"`);
}

/** node:util parseArgs's errors in the CLI's words: the option, and how to write it right. */
function argumentError(error: unknown): string {
  const { code, message } = error as { code?: string; message?: string };
  const first = message?.split("\n")[0] ?? "bad arguments";
  const option = /'(-{1,2}[^' ]+)/.exec(first)?.[1];
  if (option === undefined) return first;
  if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") {
    return `${option} needs a value (${option} <value>; one starting with "-" as ${option}=-…)`;
  }
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") {
    const meant = closestOption(option);
    if (meant !== undefined) return `unknown option ${option} (did you mean ${meant}?)`;
    return `unknown option ${option} (a value starting with "-" goes after "--" at the end (options before it), e.g. -- ${option})`;
  }
  return first;
}

/** The long option `typed` is a typo of, if any. */
function closestOption(typed: string): string | undefined {
  if (!typed.startsWith("--")) return undefined;
  const option = closestName(typed.slice(2), Object.keys(OPTIONS));
  return option === undefined ? undefined : `--${option}`;
}

/** The command `typed` is a typo of (`shw` → show), if any. */
export function closestCommand(typed: string): string | undefined {
  return closestName(typed, Object.keys(COMMAND_OPTIONS));
}

/** The one of `names` that `typed` is at most 2 edits away from (the nearest), if any. */
function closestName(typed: string, names: readonly string[]): string | undefined {
  const lower = typed.toLowerCase();
  let best: { name: string; distance: number } | undefined;
  for (const name of names) {
    const distance = editDistance(lower, name);
    const close = distance <= 2 && distance < Math.max(lower.length, name.length) / 2;
    if (close && (best === undefined || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}

/** Edits from `a` to `b` (insert, delete, replace, swap two neighbours: "lsit" is 1 from "list"). */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number): number => d[i]?.[j] ?? 0;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, at(i - 2, j - 2) + 1);
      }
      (d[i] as number[])[j] = best;
    }
  }
  return at(a.length, b.length);
}

function wholeNumber(flag: string, text: string | undefined, max?: number): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1 || (max !== undefined && value > max)) {
    const range = max === undefined ? "≥ 1" : `from 1 to ${max}`;
    throw new UsageError(`${flag} takes a whole number ${range}, not "${text}"`);
  }
  return value;
}

/** The options of every command (each command takes some of them: COMMAND_OPTIONS). */
const OPTIONS = {
  db: { type: "string" },
  leaf: { type: "string" },
  out: { type: "string" },
  json: { type: "boolean" },
  limit: { type: "string" },
  instructions: { type: "string" },
  "keep-recent-tokens": { type: "string" },
  "dry-run": { type: "boolean" },
  summarize: { type: "boolean" },
  "replace-prompt": { type: "boolean" },
  restore: { type: "boolean" },
  yes: { type: "boolean", short: "y" },
  force: { type: "boolean" },
  deleted: { type: "boolean" },
  "without-archived": { type: "boolean" },
  originals: { type: "boolean" },
  request: { type: "boolean" },
  continue: { type: "boolean" },
  "agent-folders": { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

function parse(argv: readonly string[]) {
  return parseArgs({ args: [...argv], allowPositionals: true, strict: true, options: OPTIONS });
}

/**
 * What `canopy help` prints: at most 79 columns (an 80-column terminal), each command's usage
 * form (continued on lines indented by 4) with its description below it, indented by 6.
 */
export const USAGE = `Usage: canopy <command> [arguments] [--db <path>]

Commands:
  import <file|dir> [--json]
      Import a session file or every .jsonl below a folder
  import --agent-folders [--json]
      Import the agent session folders (see folders)
  folders [--json] | folders set <dir>… | folders reset
      The agent session folders scanned and watched (default
      ~/.pi/agent/sessions and ~/.omp/agent/sessions)
  list [--deleted] [--json]
      Sessions in the library, newest first (--deleted: the ones deleted from
      it, which undelete brings back)
  show <session>
      The session tree as text (leaf, compactions, first kept entries)
  context <session> [--leaf <id>] [--json [--request]]
      What the model receives at a leaf (default: the view leaf), with what the
      request adds or drops marked; --json prints exactly the message array the
      agent builds, --json --request the request's message list
  export <session> [--out <file>] [--leaf <id>] [--without-archived]
    [--originals] [--force]
      Lossless JSONL; --leaf makes the agent resume at that entry; --originals
      writes pruned tool outputs as they were; --force writes into the folder
      of a file its agent is still writing, or over an earlier export an agent
      has written to since (refused otherwise)
  search <query> [--limit N] [--json]
      Full-text search over all sessions' messages
  compact <session> [--leaf <id>] [--instructions "…"] [--keep-recent-tokens N]
    [--dry-run] [--json]
      Compact at a leaf (default: the view leaf); --dry-run prints the plan
      without calling a model
  navigate <session> <entryId> [--summarize] [--instructions "…"]
    [--replace-prompt] [--json]
      Move the view leaf; --summarize writes a branch summary of the abandoned
      branch at the destination
  prune <session> [--leaf <id>] [--dry-run] [--restore] [--json]
      Replace old tool outputs by a notice (reversible: --restore puts every
      original back)
  chat <session> "text" [--leaf <id>] [--json]
      Continue the conversation from the view leaf (or --leaf, which becomes
      the view leaf) with the configured model; automatic compaction runs after
      the reply
  chat <session> --continue [--leaf <id>] [--json]
      The reply to the user message at the view leaf (e.g. one edited as a new
      branch), without a new message
  fork <session> <entryId> [--json]
      A new library session holding the path to the entry (labels carried,
      parentSession set); prints its id
  archive <session> <entryId> [--yes] [--json]
    | unarchive <session> <entryId> [--json]
      Archive the branch below an entry (--yes when it holds the view leaf) /
      restore it
  rename <session> ["title"] [--json]
      Rename in the library (written on export only); no title clears the
      rename
  label <session> <entryId> ["text"] [--json]
      Set an entry's label (no text clears it)
  undo <session> [--json] | redo <session> [--json]
      Revert the session's last Canopy edit / re-apply the last undone one
      (undo of a delete restores the session)
  delete <session> [--json]
      Delete from the library (the file is not touched)
  undelete <session-id> [--json]
      Bring a deleted session back (see list --deleted)
  settings get [key] | settings set <key> <value> [--json]
      Show or change a setting (value: JSON or plain text; set --json prints
      the new value as JSON)

<session> is a session id (or a unique prefix of one) or the path of a .jsonl
file, which is imported first. --db <path> picks the library database (default:
$CANOPY_DB, else the user's data folder).`;
