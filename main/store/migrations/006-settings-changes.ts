/**
 * Version 6: whether the settings changed, for the windows of a Canopy that did not change them
 * (the CLI's `settings set`, a second app). One row counts the writes of the settings document;
 * a serving process compares the count with the one it saw (main/library/outside-changes.ts).
 */
import type { Migration } from "./types.ts";

/**
 * The settings document's key (main/settings/store.ts). Other rows of `settings` (the agent
 * folders, the demo marker) are not the settings form's and do not count. A literal on purpose:
 * a shipped migration never changes, whatever the store calls its key later.
 */
const SETTINGS_KEY = "'canopy.settings'";

/** A new count and no writer: a Canopy connection signs it (store/change-writer.ts). */
const bump = "UPDATE settings_changes SET seq = seq + 1, writer = NULL WHERE id = 1;";

export const settingsChanges: Migration = {
  version: 6,
  name: "settings change log",
  up(db) {
    db.exec(`
      -- Exactly one row: seq counts the writes of the settings document; writer is the process
      -- id of the Canopy that made the last one (its connection's TEMP trigger), NULL for any
      -- other program. Reading it is one primary-key lookup, asked only when data_version moved.
      CREATE TABLE settings_changes (
        id     INTEGER PRIMARY KEY CHECK (id = 1),
        seq    INTEGER NOT NULL,
        writer INTEGER
      ) STRICT;
      INSERT INTO settings_changes (id, seq, writer) VALUES (1, 0, NULL);

      CREATE TRIGGER settings_changed_insert AFTER INSERT ON settings
        WHEN new.key = ${SETTINGS_KEY} BEGIN ${bump} END;
      CREATE TRIGGER settings_changed_update AFTER UPDATE ON settings
        WHEN new.key = ${SETTINGS_KEY} OR old.key = ${SETTINGS_KEY} BEGIN ${bump} END;
      CREATE TRIGGER settings_changed_delete AFTER DELETE ON settings
        WHEN old.key = ${SETTINGS_KEY} BEGIN ${bump} END;
    `);
  },
};
