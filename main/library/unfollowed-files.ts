/**
 * The library's session files this process found it cannot follow any more: still there, but no
 * longer a session file (emptied, overwritten with something else) or unreadable. The watcher
 * records them with the import's one-line reason, and forgets one once it imports again; the
 * session's problems say so meanwhile (session-file-problems.ts).
 */
import type { Database } from "../store/open.ts";

const byLibrary = new WeakMap<Database, Map<string, string>>();

/** Source path → why its last import read no session, for `db`'s files (this process only). */
export function unfollowedFiles(db: Database): Map<string, string> {
  let files = byLibrary.get(db);
  if (files === undefined) {
    files = new Map();
    byLibrary.set(db, files);
  }
  return files;
}
