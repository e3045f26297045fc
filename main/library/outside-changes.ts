/**
 * Follows writes other programs make to the library — the CLI (`canopy import`, `label`,
 * `compact`, …) or a second Canopy — and announces them as this process's own writes are
 * (`session:changed` + `library:changed`), so open windows refresh. A timer asks SQLite's
 * `data_version`, which moves only when another connection commits; then the change log
 * (migration 5) says which sessions, leaving out those this process wrote and announced itself,
 * and the settings log (migration 6) whether the settings changed (`settings:changed`); the
 * agent folders' row, compared with the value last announced, whether they changed
 * (`library:folders-changed`: the windows show them, the live watcher re-reads them).
 */
import type { AppContext } from "../api/types.ts";
import { OWN_WRITER } from "../store/change-writer.ts";
import { changesSince, dataVersion, latestChangeSeq } from "../store/repos/session-changes.ts";
import { type SettingsMark, settingsMark } from "../store/repos/settings-changes.ts";
import { loadSettings } from "../settings/store.ts";
import { announce } from "./edit-ops.ts";
import { foldersInEffect, foldersMark } from "./folders.ts";

/** How often the library is asked (a window follows a CLI command within about this). */
export const OUTSIDE_POLL_MS = 500;

export interface OutsideChangesOptions {
  intervalMs?: number;
  /** Where a failed check is reported (default console.error), once until one succeeds. */
  log?: (message: string) => void;
}

export interface OutsideChanges {
  /** Looks now (the timer calls it); true when it announced something. */
  check(): boolean;
  close(): void;
}

export function watchOutsideChanges(ctx: AppContext, options: OutsideChangesOptions = {}): OutsideChanges {
  const log = options.log ?? ((message: string) => console.error(`canopy: ${message}`));
  const { db } = ctx;
  let version = dataVersion(db);
  // Only what is written from now on: the window has just loaded everything before.
  let seen = latestChangeSeq(db);
  let settingsSeen = settingsMark(db).seq;
  let foldersSeen = foldersMark(db);
  // This process's library:set-folders announces its change itself: not again from here.
  const unsubscribe = ctx.events.subscribe((name) => {
    if (name === "library:folders-changed" && db.open) foldersSeen = foldersMark(db);
  });
  let failing = false;

  /** True when another program wrote the settings since the last look (announced here). */
  const settingsChanged = (mark: SettingsMark): boolean => {
    if (mark.seq === settingsSeen) return false;
    settingsSeen = mark.seq;
    // The last write was this process's: its handler announced the settings as they are now
    // (an outside write before it is in them, as each write changes the stored document).
    if (mark.writer === OWN_WRITER) return false;
    ctx.events.emit("settings:changed", { settings: loadSettings(db) });
    return true;
  };

  /** True when another program set or reset the agent folders since the last look (announced here). */
  const foldersChanged = (mark: string): boolean => {
    if (mark === foldersSeen) return false;
    foldersSeen = mark;
    ctx.events.emit("library:folders-changed", foldersInEffect(db));
    return true;
  };

  const check = (): boolean => {
    // A transaction of this connection is never open across a turn of the event loop, but
    // if one were, reading inside it would see no one else's commits.
    if (!db.open || db.inTransaction) return false;
    try {
      const current = dataVersion(db);
      if (current === version) return false;
      const changes = changesSince(db, seen);
      const mark = settingsMark(db);
      const folders = foldersMark(db);
      // Only once read: a failed read is tried again on the next tick.
      version = current;
      failing = false;
      const folderSet = foldersChanged(folders);
      const settings = settingsChanged(mark) || folderSet;
      const last = changes[changes.length - 1];
      if (last === undefined) return settings; // E.g. the import thread indexing for search.
      seen = last.seq;
      // This process's writes (this connection, the import thread's) were announced by it.
      const outside = changes.filter((change) => change.writer !== OWN_WRITER);
      if (outside.length === 0) return settings;
      // A session removed for good has no id left: the list reloads all the same.
      announce(
        ctx,
        outside.flatMap((change) => (change.id === null ? [] : [change.id])),
      );
      return true;
    } catch (error) {
      if (!failing) log(`could not look for changes other programs made to the library: ${String(error)}`);
      failing = true;
      return false;
    }
  };

  const timer = setInterval(check, options.intervalMs ?? OUTSIDE_POLL_MS);
  // Never what keeps the process alive.
  timer.unref();
  return {
    check,
    close: () => {
      clearInterval(timer);
      unsubscribe();
    },
  };
}
