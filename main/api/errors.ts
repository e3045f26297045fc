/**
 * Expected failures of handlers: thrown as ApiFailure inside main, turned into
 * `{ok:false, error:{code, message}}` data by the dispatcher before they cross any transport.
 */
import type { ApiError, ApiErrorCode } from "../../core/api/dto.ts";
import { isTooLongError } from "../../core/text/too-long.ts";
import { StoreError, type StoreErrorCode } from "../store/errors.ts";

const TOO_LONG = "A text is longer than the longest text JavaScript can hold (about 512 MB)";

const STORE_CODES: Record<StoreErrorCode, ApiErrorCode> = {
  not_found: "not_found",
  invalid_input: "invalid_input",
  db_too_new: "unsupported",
  migration_failed: "internal",
  not_a_library: "unsupported",
  library_moved: "io_error",
  cannot_open: "io_error",
};

/** SQLite failures a user can act on, in words (SQLite itself says "database is locked"). */
const SQLITE_MESSAGES: Record<string, ApiError> = {
  SQLITE_BUSY: {
    code: "conflict",
    message:
      "The library is busy: another Canopy process (the app, an import, a CLI command) has been writing to it for more than 5 seconds; try again when it is done",
  },
  SQLITE_FULL: { code: "io_error", message: "The library could not be written: the disk is full" },
  SQLITE_READONLY: {
    code: "io_error",
    message: "The library could not be written: its file or folder is read-only",
  },
};

export class ApiFailure extends Error {
  readonly code: ApiErrorCode;
  constructor(code: ApiErrorCode, message: string) {
    super(message);
    this.name = "ApiFailure";
    this.code = code;
  }
}

export function notFound(message: string): ApiFailure {
  return new ApiFailure("not_found", message);
}

export function invalidInput(message: string): ApiFailure {
  return new ApiFailure("invalid_input", message);
}

/** Any thrown value as a one-line ApiError (never a stack trace). */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiFailure) return { code: error.code, message: error.message };
  // The dispatcher says which answer and what instead (too-large.ts); this is the runner's word.
  if (isTooLongError(error)) return { code: "too_large", message: TOO_LONG };
  if (error instanceof StoreError) return { code: STORE_CODES[error.code], message: oneLine(error.message) };
  const code = (error as { code?: unknown } | null)?.code;
  // better-sqlite3 gives extended codes: SQLITE_BUSY_RECOVERY, SQLITE_BUSY_SNAPSHOT, …
  const sqlite =
    typeof code === "string"
      ? SQLITE_MESSAGES[code.startsWith("SQLITE_BUSY") ? "SQLITE_BUSY" : code]
      : undefined;
  if (sqlite) return sqlite;
  if (typeof code === "string" && ["ENOENT", "EACCES", "EISDIR", "ENOTDIR", "EPERM"].includes(code)) {
    return { code: "io_error", message: oneLine(error instanceof Error ? error.message : String(error)) };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { code: "internal", message: oneLine(message) };
}

function oneLine(text: string): string {
  const first = text.split("\n")[0] ?? "";
  return first.length > 500 ? `${first.slice(0, 497)}...` : first;
}
