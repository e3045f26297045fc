/**
 * Maps what a summary run throws to API failures: cancellation (an abort anywhere) versus a
 * model/endpoint failure (in the words a user reads: core/llm/error-words.ts) versus anything else.
 */
import { modelErrorInWords } from "../../core/llm/error-words.ts";
import { ApiFailure } from "../api/errors.ts";

export function isAbortError(error: unknown): boolean {
  return error instanceof Error && (error.name === "AbortError" || error.name === "APIUserAbortError");
}

export function summaryFailure(error: unknown, signal: AbortSignal, cancelledMessage: string): ApiFailure {
  if (error instanceof ApiFailure) return error;
  if (signal.aborted || isAbortError(error)) return new ApiFailure("cancelled", cancelledMessage);
  const message = error instanceof Error ? error.message : String(error);
  return modelFailure(message.split("\n")[0] ?? message);
}

/** A model request's error as the user reads it (after any retry has parsed the raw text). */
export function modelFailure(message: string): ApiFailure {
  return new ApiFailure("model_error", modelErrorInWords(message));
}
