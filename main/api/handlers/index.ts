/**
 * The full handler table: one object per area, joined so that the compiler checks it against
 * the contract (a missing or extra channel is an error).
 */
import type { HandlerTable } from "../types.ts";
import { contextHandlers } from "./context.ts";
import { libraryHandlers } from "./library.ts";
import { sessionHandlers } from "./session.ts";

export const handlers: HandlerTable = {
  ...libraryHandlers,
  ...sessionHandlers,
  ...contextHandlers,
};
