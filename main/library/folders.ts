/**
 * The agent session folders Canopy scans and watches: the `library.folders` setting when the
 * user set it, else the pi and oh-my-pi defaults (SPEC §1.1).
 */
import type { Database } from "../store/open.ts";
import { getSetting, setSetting } from "../store/repos/settings.ts";
import { defaultAgentFolders } from "./files.ts";

const FOLDERS_KEY = "library.folders";

export function configuredFolders(db: Database): string[] {
  const stored = getSetting(db, FOLDERS_KEY);
  if (Array.isArray(stored) && stored.every((folder) => typeof folder === "string")) return stored;
  return defaultAgentFolders();
}

/** Sets the folders to scan and watch; none means back to the defaults. */
export function setConfiguredFolders(db: Database, folders: string[]): void {
  setSetting(db, FOLDERS_KEY, folders.length === 0 ? undefined : folders);
}

/** True when the user has not set the folders (the pi and oh-my-pi defaults are in use). */
export function foldersAreDefault(db: Database): boolean {
  return getSetting(db, FOLDERS_KEY) === undefined;
}
