/**
 * The session last open in any window, kept in the page's localStorage so the next start of the
 * app (or a new tab) opens where the user left off instead of on the newest session.
 */
const KEY = "canopy.lastSession";

export function loadLastSession(): string | null {
  try {
    return localStorage.getItem(KEY);
  } catch {
    return null;
  }
}

export function saveLastSession(sessionId: string): void {
  try {
    localStorage.setItem(KEY, sessionId);
  } catch {
    // Storage full or refused: the next start opens the newest session, as it would anyway.
  }
}
