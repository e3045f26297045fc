/**
 * `canopy chat <session> "text"`: one chat turn from the session's view leaf with the configured
 * model (keys from the environment); `--continue` instead answers the user message at the view
 * leaf. Replies go to stdout (a failed one's text too, when it has any), automatic steps and
 * errors to stderr; Ctrl+C cancels the turn (nothing is appended for a cancelled reply).
 */
import type { RequestOutput } from "../../core/api/contract.ts";
import { cutOffLine } from "../../core/compaction/cut-off-line.ts";
import { modelErrorInWords } from "../../core/llm/error-words.ts";
import type { AssistantMessage, MessageEntry, SessionEntry, ToolCall } from "../../core/session/entries.ts";
import { textBlocksOf } from "../../core/session/message-text.ts";
import { toolsNotRunText } from "../../core/session/tools-not-run.ts";
import { toolNames } from "../llm/tool-calls.ts";
import { NO_MODEL_MESSAGE } from "../pipelines/chat-turn.ts";
import { type ParsedCommand, UsageError } from "./args.ts";
import { type CliContext, CommandError } from "./context.ts";
import { withCancel } from "./pipeline-commands.ts";
import { toJson } from "../../core/text/json-deep.ts";

const NO_MODEL_CLI =
  "No model configured (the offline summarizer cannot chat): canopy settings set model " +
  `'{"baseUrl":"…/v1","id":"…","contextWindow":…}' (README: Summaries: model setup)`;

function toolCallNames(message: AssistantMessage): string[] {
  return toolNames(message.content.filter((block): block is ToolCall => block.type === "toolCall"));
}

function replyText(message: AssistantMessage): string {
  return message.content
    .filter((block) => block.type === "text")
    .map((block) => (block as { text: string }).text)
    .join("");
}

export async function runChatCommand(cli: CliContext, parsed: ParsedCommand): Promise<boolean> {
  if (parsed.command !== "chat") return false;
  const [sessionArg, ...words] = parsed.positionals;
  const sessionId = await cli.resolveSession(sessionArg);
  const text = words.join(" ");
  const continuing = parsed.options.continue;
  if (continuing && text.trim() !== "") throw new UsageError("--continue sends no message; leave the text out");
  if (!continuing && text.trim() === "") {
    throw new UsageError('missing the message: canopy chat <session> "text" (or --continue)');
  }
  if (parsed.options.leaf !== undefined) {
    await cli.request("session:set-view-leaf", { sessionId, leafId: parsed.options.leaf });
  }
  const unsubscribe = cli.api.ctx.events.subscribe((name, payload) => {
    if (name === "compaction:auto-started" && "reason" in payload)
      cli.io.err(`automatic compaction (${payload.reason})…`);
    if ((name === "chat:retry-started" || name === "compaction:retry-started") && "delayMs" in payload) {
      const what = name === "chat:retry-started" ? "the reply" : "the summary";
      const seconds = (payload.delayMs / 1000).toFixed(1);
      cli.io.err(
        `${what} failed (${modelErrorInWords(payload.errorMessage)}); retrying in ${seconds} s (${payload.attempt}/${payload.maxAttempts})…`,
      );
    }
  });
  let result: RequestOutput<"chat:send">;
  try {
    result = await withCancel(cli, sessionId, "chat:abort", () =>
      continuing ? cli.request("chat:continue", { sessionId }) : cli.request("chat:send", { sessionId, text }),
    );
  } catch (error) {
    // The app's wording points at its Settings panel; here the setting is set with a command.
    if (error instanceof Error && error.message === NO_MODEL_MESSAGE) throw new CommandError(NO_MODEL_CLI);
    throw error;
  } finally {
    unsubscribe();
  }
  if (parsed.options.json) {
    cli.io.out(toJson(result, 2));
  } else {
    // Only the entries the turn appended: session:get would read and send the whole session.
    const appended = await cli.request("session:entries", { sessionId, entryIds: result.appendedEntryIds });
    const byId = new Map<string, SessionEntry>(appended.map((stored) => [stored.entry.id, stored.entry]));
    for (const id of result.appendedEntryIds) {
      const entry = byId.get(id);
      if (!entry || id === result.userEntryId) continue;
      if (entry.type === "compaction")
        cli.io.err(`[compaction ${id}: the history before it is now a summary]`);
      if (entry.type !== "message") continue;
      const message = (entry as MessageEntry).message;
      if (message.role === "user") cli.io.err(`[automatic prompt] ${textBlocksOf(message.content)}`);
      if (message.role !== "assistant") continue;
      const text = replyText(message);
      // The final reply's failure is the command's error (below); earlier ones are reported here.
      if (message.stopReason !== "error") {
        // A reply of reasoning only has no text to print: say so instead of an empty line.
        if (text === "" && message.content.some((block) => block.type === "thinking")) {
          cli.io.err(`[reply ${id} holds reasoning only, no text]`);
        } else cli.io.out(text);
        const tools = toolCallNames(message);
        if (tools.length > 0) cli.io.err(`[reply ${id}] ${toolsNotRunText(tools)}`);
      } else {
        // A reply cut off part-way keeps what it wrote: printed, its error says it is cut off.
        if (text !== "") cli.io.out(text);
        if (id !== result.assistantEntryId) cli.io.err(`[reply failed] ${message.errorMessage ?? "error"}`);
      }
    }
  }
  if (result.autoCompaction?.cutOff) cli.io.err(cutOffLine(result.autoCompaction.cutOff));
  if (result.autoCompaction?.errorMessage) cli.io.err(modelErrorInWords(result.autoCompaction.errorMessage));
  else if (result.autoCompaction?.aborted) {
    cli.io.err("automatic compaction cancelled: nothing of it was saved; the reply is kept");
  }
  if (result.stopReason === "error")
    throw new CommandError(result.errorMessage ? modelErrorInWords(result.errorMessage) : "the model's reply failed");
  return true;
}
