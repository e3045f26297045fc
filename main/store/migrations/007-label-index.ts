/**
 * Version 7: an index of each session's label entries. A label set from the canvas or the CLI
 * reads the session's current labels (structure-index.ts currentLabel); without this index that
 * was a walk over every entry row of the session (~20 ms on a 100k-entry session, per label).
 */
import type { Migration } from "./types.ts";

export const labelIndex: Migration = {
  version: 7,
  name: "label entries index",
  up(db) {
    // Partial: only label rows are in it, so imports and appends of other entries never touch it.
    db.exec("CREATE INDEX entries_labels ON entries (sid, seq) WHERE type = 'label';");
  },
};
