/**
 * Sessions whose file is gone and whose library copy the user chose to keep as the only one
 * (library:keep-copy): session id → the path that was gone then, in the settings table. The file
 * coming back at that path makes the mark moot (it is followed again); a file at another path is
 * another matter, so the path is kept with the mark.
 */
import { getSetting, setSetting } from "../store/repos/settings.ts";
import type { Database } from "../store/open.ts";

const KEPT_KEY = "library.keptCopies";

export function keptCopies(db: Database): Record<string, string> {
  const stored = getSetting(db, KEPT_KEY);
  if (stored === null || typeof stored !== "object" || Array.isArray(stored)) return {};
  return Object.fromEntries(
    Object.entries(stored).filter((pair): pair is [string, string] => typeof pair[1] === "string"),
  );
}

/** True when the user kept `sessionId`'s copy with its file gone from `sourcePath`. */
export function isKeptCopy(kept: Record<string, string>, sessionId: string, sourcePath: string): boolean {
  return kept[sessionId] === sourcePath;
}

export function keepCopy(db: Database, sessionId: string, sourcePath: string): void {
  setSetting(db, KEPT_KEY, { ...keptCopies(db), [sessionId]: sourcePath });
}
