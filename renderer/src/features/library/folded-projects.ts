/**
 * Which project groups of the session list are folded, kept in the page's localStorage so a
 * reload (or the next start of the app) shows the list as it was left.
 */
const KEY = "canopy.foldedProjects";

export function loadFoldedProjects(): ReadonlySet<string> {
  try {
    const stored: unknown = JSON.parse(localStorage.getItem(KEY) ?? "[]");
    return new Set(Array.isArray(stored) ? stored.filter((cwd): cwd is string => typeof cwd === "string") : []);
  } catch {
    return new Set();
  }
}

export function saveFoldedProjects(folded: ReadonlySet<string>): void {
  try {
    localStorage.setItem(KEY, JSON.stringify([...folded]));
  } catch {
    // Storage full or refused: the folding still holds until the page is reloaded.
  }
}
