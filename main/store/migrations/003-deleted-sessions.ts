/**
 * Version 3: deleting a session from the library is a soft delete (`sessions.deleted_at`), so
 * undo brings it back with everything — entries, view leaf, labels, archived branches, its undo
 * stack — and a folder scan that meets its file again does not re-add it as a new session.
 */
import type { Migration } from "./types.ts";

export const deletedSessions: Migration = {
  version: 3,
  name: "deleted sessions (soft delete)",
  up(db) {
    db.exec("ALTER TABLE sessions ADD COLUMN deleted_at TEXT;");
  },
};
