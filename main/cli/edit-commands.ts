/**
 * CLI commands for Canopy's own, undoable session edits (issue 6): fork, archive, unarchive,
 * rename and undo — the same `edits:` handlers as the app.
 */
import type { EditResultDto } from "../../core/api/dto.ts";
import type { ParsedCommand } from "./args.ts";
import { UsageError } from "./args.ts";
import type { CliContext } from "./context.ts";

function required(value: string | undefined, what: string): string {
  if (value === undefined || value.trim() === "") throw new UsageError(`missing ${what}`);
  return value;
}

function print(cli: CliContext, parsed: ParsedCommand, result: EditResultDto, text: string): void {
  cli.io.out(parsed.options.json ? JSON.stringify(result, null, 2) : text);
}

export async function runEditCommand(cli: CliContext, parsed: ParsedCommand): Promise<boolean> {
  const [sessionArg, second] = parsed.positionals;
  switch (parsed.command) {
    case "fork": {
      cli.requireNoExtra(2);
      const sessionId = await cli.resolveSession(sessionArg);
      const result = await cli.request("edits:fork", { sessionId, entryId: required(second, "<entryId>") });
      print(cli, parsed, result, result.forkSessionId ?? "");
      return true;
    }
    case "archive":
    case "unarchive": {
      cli.requireNoExtra(2);
      const sessionId = await cli.resolveSession(sessionArg);
      const entryId = required(second, "<entryId>");
      const result =
        parsed.command === "archive"
          ? await cli.request("edits:archive", { sessionId, entryId, confirm: parsed.options.yes })
          : await cli.request("edits:unarchive", { sessionId, entryId });
      print(cli, parsed, result, `${parsed.command}d the branch below ${entryId}`);
      return true;
    }
    case "rename": {
      cli.requireNoExtra(2);
      const sessionId = await cli.resolveSession(sessionArg);
      const result = await cli.request("edits:rename", { sessionId, title: required(second, '"title"') });
      print(cli, parsed, result, `renamed ${sessionId}`);
      return true;
    }
    case "undo": {
      cli.requireNoExtra(1);
      const sessionId = await cli.resolveSession(sessionArg);
      const result = await cli.request("edits:undo", { sessionId });
      print(cli, parsed, result, result.operation === null ? "nothing to undo" : `undid ${result.operation}`);
      return true;
    }
    default:
      return false;
  }
}
