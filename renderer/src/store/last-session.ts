/**
 * The session last open in any window, kept in the page's localStorage so the next start of the
 * app (or a new tab) opens where the user left off instead of on the newest session.
 */
import { readStored, writeStored } from "./page-storage.ts";

const KEY = "canopy.lastSession";

export function loadLastSession(): string | null {
  return readStored(KEY);
}

/** Refused storage: the next start opens the newest session, as it would anyway. */
export function saveLastSession(sessionId: string): void {
  writeStored(KEY, sessionId);
}
