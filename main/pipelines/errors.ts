/**
 * Maps what a summary run throws to API failures: cancellation (an abort anywhere) versus a
 * model/endpoint failure versus anything else.
 */
import { ApiFailure } from "../api/errors.ts";

export function isAbortError(error: unknown): boolean {
  return error instanceof Error && (error.name === "AbortError" || error.name === "APIUserAbortError");
}

export function summaryFailure(error: unknown, signal: AbortSignal, cancelledMessage: string): ApiFailure {
  if (error instanceof ApiFailure) return error;
  if (signal.aborted || isAbortError(error)) return new ApiFailure("cancelled", cancelledMessage);
  const message = error instanceof Error ? error.message : String(error);
  return new ApiFailure("model_error", message.split("\n")[0] ?? message);
}
