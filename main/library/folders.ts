/**
 * The agent session folders Canopy scans and watches: the `library.folders` setting when the
 * user set it, else the pi and oh-my-pi defaults (SPEC §1.1). A change is announced as
 * `library:folders-changed` (by library:set-folders, or the outside-changes poll for others').
 */
import { existsSync } from "node:fs";
import type { ConfiguredFolders } from "../../core/api/dto.ts";
import { ApiFailure } from "../api/errors.ts";
import type { Database } from "../store/open.ts";
import { getSetting, setSetting } from "../store/repos/settings.ts";
import { writeTransaction } from "../store/transactions.ts";
import { defaultAgentFolders } from "./files.ts";

const FOLDERS_KEY = "library.folders";

/** The stored value as JSON text ("null": none set), to tell whether another program changed it. */
export function foldersMark(db: Database): string {
  return JSON.stringify(getSetting(db, FOLDERS_KEY) ?? null);
}

export function configuredFolders(db: Database): string[] {
  const stored = getSetting(db, FOLDERS_KEY);
  if (Array.isArray(stored) && stored.every((folder) => typeof folder === "string")) return stored;
  return defaultAgentFolders();
}

/**
 * Sets the folders to scan and watch; none means back to the defaults. With `expected` (the
 * folders a window showed), refused as a conflict when others are in effect by now, read and
 * written in one write transaction: a window must not overwrite a change it has not shown.
 */
export function setConfiguredFolders(db: Database, folders: string[], expected?: readonly string[]): void {
  writeTransaction(db, () => {
    const now = configuredFolders(db);
    if (expected !== undefined && (now.length !== expected.length || now.some((folder, i) => folder !== expected[i]))) {
      throw new ApiFailure(
        "conflict",
        `The agent folders were changed elsewhere (they are now ${now.join(", ")}): yours were not saved, so as not to overwrite that change`,
      );
    }
    setSetting(db, FOLDERS_KEY, folders.length === 0 ? undefined : folders);
  })();
}

/** True when the user has not set the folders (the pi and oh-my-pi defaults are in use). */
export function foldersAreDefault(db: Database): boolean {
  return getSetting(db, FOLDERS_KEY) === undefined;
}

/** The folders in effect, whether they are the defaults, and which of them are not there. */
export function foldersInEffect(db: Database): ConfiguredFolders {
  const folders = configuredFolders(db);
  return {
    folders,
    defaults: foldersAreDefault(db),
    missing: folders.filter((folder) => !existsSync(folder)),
  };
}
