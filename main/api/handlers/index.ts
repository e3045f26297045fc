/**
 * The full handler table: one object per area, joined so that the compiler checks it against
 * the contract (a missing or extra channel is an error).
 */
import type { HandlerTable } from "../types.ts";
import { chatHandlers } from "./chat.ts";
import { compactionHandlers, jobHandlers, navigationHandlers } from "./compaction.ts";
import { contextHandlers } from "./context.ts";
import { editsHandlers } from "./edits.ts";
import { libraryHandlers } from "./library.ts";
import { pruningHandlers } from "./pruning.ts";
import { secretsHandlers } from "./secrets.ts";
import { sessionHandlers } from "./session.ts";
import { settingsHandlers } from "./settings.ts";

export const handlers: HandlerTable = {
  ...libraryHandlers,
  ...sessionHandlers,
  ...contextHandlers,
  ...compactionHandlers,
  ...navigationHandlers,
  ...jobHandlers,
  ...pruningHandlers,
  ...editsHandlers,
  ...settingsHandlers,
  ...chatHandlers,
  ...secretsHandlers,
};
