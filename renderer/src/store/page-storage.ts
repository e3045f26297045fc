/**
 * The page's localStorage for small preferences (folded project groups, the last open session,
 * how the LLM view shows texts). Storage may be refused (a private window, a full store): a read
 * then gives null and a write is dropped, the preference holding until the page is reloaded.
 */

export function readStored(key: string): string | null {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

export function writeStored(key: string, value: string): void {
  try {
    localStorage.setItem(key, value);
  } catch {
    // Refused: see above.
  }
}
