/**
 * Version 8: sessions.line_marks, where the seq of the file's rows stops being their line in the
 * file (Canopy's own entries took the positions after the file's last line, so the lines the agent
 * appended later are stored further on). Problems and malformed lines report the file's line
 * from it (main/library/file-lines.ts). Sessions stored before it have no marks: their seq stands.
 */
import type { Migration } from "./types.ts";

export const lineMarks: Migration = {
  version: 8,
  name: "sessions.line_marks",
  up(db) {
    db.exec("ALTER TABLE sessions ADD COLUMN line_marks TEXT NOT NULL DEFAULT '[]';");
  },
};
