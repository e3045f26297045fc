/**
 * Which project groups of the session list are folded, kept in the page's localStorage so a
 * reload (or the next start of the app) shows the list as it was left.
 */
import { readStored, writeStored } from "../../store/page-storage.ts";

const KEY = "canopy.foldedProjects";

export function loadFoldedProjects(): ReadonlySet<string> {
  try {
    const stored: unknown = JSON.parse(readStored(KEY) ?? "[]");
    return new Set(
      Array.isArray(stored) ? stored.filter((cwd): cwd is string => typeof cwd === "string") : [],
    );
  } catch {
    return new Set();
  }
}

/** Refused storage: the folding still holds until the page is reloaded. */
export function saveFoldedProjects(folded: ReadonlySet<string>): void {
  writeStored(KEY, JSON.stringify([...folded]));
}
