/**
 * Errors the store raises on purpose. Each carries a stable `code` so the API layer can turn it
 * into `{ok:false, error}` data instead of matching on message text.
 */

export type StoreErrorCode =
  | "db_too_new"
  | "migration_failed"
  | "not_found"
  | "invalid_input"
  | "not_a_library"
  | "library_moved"
  | "cannot_open";

export class StoreError extends Error {
  readonly code: StoreErrorCode;

  constructor(code: StoreErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "StoreError";
    this.code = code;
  }
}

/** The database was written by a newer Canopy: opening it here could corrupt it. */
export class DatabaseTooNewError extends StoreError {
  readonly found: number;
  readonly supported: number;

  constructor(file: string, found: number, supported: number) {
    super(
      "db_too_new",
      `The library database ${file} has schema version ${found}, but this Canopy only knows versions up to ${supported}. ` +
        "Update Canopy, or use another path (--db, or CANOPY_DB for the app).",
    );
    this.name = "DatabaseTooNewError";
    this.found = found;
    this.supported = supported;
  }
}

/** Why a file-system call failed, in words (for messages that already name the path). */
export function fileErrorReason(cause: unknown): string {
  switch ((cause as NodeJS.ErrnoException).code) {
    case "ENOSPC":
      return "the disk is full";
    case "ENOTDIR":
    case "EEXIST":
      return "a part of that path is a file";
    case "EACCES":
    case "EPERM":
      return "permission denied";
    case "EROFS":
      return "the file system is read-only";
    case "ENOENT":
      return "no such file or folder";
    case "ELOOP":
      return "a symbolic link that leads back to itself";
    case "EISDIR":
      return "it is a folder";
    default:
      return cause instanceof Error ? cause.message : String(cause);
  }
}
