/**
 * CLI commands for Canopy's own, undoable session edits (issue 6): fork, archive, unarchive,
 * rename, label, undo, redo, and deleting a session from the library (delete, undelete) — the
 * same `edits:` and `library:` handlers as the app.
 */
import type { EditResultDto } from "../../core/api/dto.ts";
import type { ParsedCommand } from "./args.ts";
import { UsageError } from "./args.ts";
import type { CliContext } from "./context.ts";
import { toJson } from "../../core/text/json-deep.ts";
import { fitText } from "../../core/text/columns.ts";

function required(value: string | undefined, what: string): string {
  if (value === undefined || value.trim() === "") throw new UsageError(`missing ${what}`);
  return value;
}

function print(cli: CliContext, parsed: ParsedCommand, result: EditResultDto, text: string): void {
  cli.io.out(parsed.options.json ? toJson(result, 2) : fitText(text, cli.io.columns, "  "));
}

/**
 * The line for a set-or-clear edit (rename, label): what it did (`done`: set, cleared), or why
 * nothing changed (`unchanged`: the same value again, nothing to clear).
 */
function setOrClearText(
  result: EditResultDto,
  clearing: boolean,
  done: [set: string, cleared: string],
  unchanged: [set: string, cleared: string],
): string {
  const pick = clearing ? 1 : 0;
  return result.operation === null ? `nothing changed: ${unchanged[pick]}` : done[pick];
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
      const title = second === undefined || second.trim() === "" ? null : second;
      const result = await cli.request("edits:rename", { sessionId, title });
      const done = setOrClearText(
        result,
        title === null,
        [`renamed ${sessionId}`, `cleared the title of ${sessionId}`],
        [`${sessionId} already has that title`, `${sessionId} has no title of Canopy's to clear`],
      );
      print(cli, parsed, result, done);
      return true;
    }
    case "label": {
      cli.requireNoExtra(3);
      const sessionId = await cli.resolveSession(sessionArg);
      const targetId = required(second, "<entryId>");
      const text = parsed.positionals[2];
      const label = text === undefined || text.trim() === "" ? null : text;
      const result = await cli.request("edits:label", { sessionId, targetId, label });
      const done = setOrClearText(
        result,
        label === null,
        [`labelled ${targetId}`, `cleared the label of ${targetId}`],
        [`${targetId} already has that label`, `${targetId} has no label`],
      );
      print(cli, parsed, result, done);
      return true;
    }
    case "undo":
    case "redo": {
      cli.requireNoExtra(1);
      // Undo reaches a deleted session too: undoing its delete brings it back.
      const sessionId = await cli.resolveSession(sessionArg, "any");
      const result = await cli.request(parsed.command === "undo" ? "edits:undo" : "edits:redo", { sessionId });
      const done = parsed.command === "undo" ? "undid" : "redid";
      const text = result.operation === null ? `nothing to ${parsed.command}` : `${done} ${result.operation}`;
      print(cli, parsed, result, result.note === undefined ? text : `${text}: ${result.note}`);
      return true;
    }
    case "delete": {
      cli.requireNoExtra(1);
      const sessionId = await cli.resolveSession(sessionArg);
      const result = await cli.request("library:delete", { sessionId });
      print(cli, parsed, result, `deleted ${sessionId} from the library (its file is untouched; undelete brings it back)`);
      return true;
    }
    case "undelete": {
      cli.requireNoExtra(1);
      const sessionId = await cli.resolveSession(sessionArg, "deleted");
      const result = await cli.request("library:restore", { sessionId });
      print(cli, parsed, result, `restored ${sessionId}`);
      return true;
    }
    default:
      return false;
  }
}
