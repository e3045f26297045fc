/**
 * Command-line parsing for `canopy`: a command, its positional arguments and its options,
 * with one-line usage errors (never a stack trace).
 */
import { parseArgs } from "node:util";

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
    help: boolean;
  };
}

export function parseCommandLine(argv: readonly string[]): ParsedCommand {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    throw new UsageError((error as Error).message.split("\n")[0] ?? "bad arguments");
  }
  const [command = "help", ...positionals] = parsed.positionals;
  const limitText = parsed.values.limit;
  const limit = limitText === undefined ? undefined : Number(limitText);
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) {
    throw new UsageError(`--limit takes a whole number ≥ 1, not "${limitText}"`);
  }
  return {
    command,
    positionals,
    options: {
      db: parsed.values.db,
      leaf: parsed.values.leaf,
      out: parsed.values.out,
      json: parsed.values.json ?? false,
      limit,
      help: parsed.values.help ?? false,
    },
  };
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      db: { type: "string" },
      leaf: { type: "string" },
      out: { type: "string" },
      json: { type: "boolean" },
      limit: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
}

export const USAGE = `Usage: canopy <command> [arguments] [--db <path>]

Commands:
  import <file|dir>                       Import a session file or every .jsonl below a folder
  list [--json]                           Sessions in the library, newest first
  show <session>                          The session tree as text (leaf, compactions, first kept entries)
  context <session> [--leaf <id>] [--json]
                                          What the model receives at a leaf (default: the view leaf);
                                          --json prints exactly the message array
  export <session> [--out <file>] [--leaf <id>]
                                          Lossless JSONL; --leaf makes the agent resume at that entry
  search <query> [--limit N] [--json]     Full-text search over all sessions' messages

<session> is a session id (or a unique prefix of one) or the path of a .jsonl file, which is
imported first. --db <path> picks the library database (default: $CANOPY_DB, else the user's
data folder).`;
