/**
 * `canopy folders`: the agent session folders Canopy scans (`import --agent-folders`, the app's
 * "Scan agent folders") and watches — the pi and oh-my-pi defaults unless set; `folders set
 * <dir>…` replaces them, `folders reset` goes back to the defaults.
 */
import path from "node:path";
import type { ConfiguredFolders } from "../../core/api/dto.ts";
import { fitText } from "../../core/text/columns.ts";
import { type ParsedCommand, UsageError } from "./args.ts";
import type { CliContext } from "./context.ts";

function renderFolders(result: ConfiguredFolders, columns?: number): string {
  const heading = result.defaults
    ? "Agent session folders (the defaults; `canopy folders set <dir>…` changes them):"
    : "Agent session folders (set; `canopy folders reset` goes back to the defaults):";
  const lines = result.folders.map(
    (folder) => `  ${folder}${result.missing.includes(folder) ? "  (not there)" : ""}`,
  );
  return [heading, ...lines].map((line) => fitText(line, columns, "    ")).join("\n");
}

export async function runFolderCommand(cli: CliContext, parsed: ParsedCommand): Promise<boolean> {
  if (parsed.command !== "folders") return false;
  const [action, ...dirs] = parsed.positionals;
  let result: ConfiguredFolders;
  if (action === undefined) {
    result = await cli.request("library:get-folders", {});
  } else if (action === "set") {
    if (dirs.length === 0)
      throw new UsageError("folders set needs one or more folders (folders reset: the defaults)");
    result = await cli.request("library:set-folders", { folders: dirs.map((dir) => path.resolve(dir)) });
  } else if (action === "reset") {
    cli.requireNoExtra(1);
    result = await cli.request("library:set-folders", { folders: [] });
  } else {
    throw new UsageError(`unknown folders action "${action}" (folders, folders set <dir>…, folders reset)`);
  }
  cli.io.out(parsed.options.json ? JSON.stringify(result, null, 2) : renderFolders(result, cli.io.columns));
  return true;
}
