/**
 * A path as the import form and the agent folders list receive it, typed or pasted from a file
 * manager or a terminal: in quotes, or as a file:// URL. A relative path is refused: the app has
 * no folder the user is "in", and main would take it relative to the app's own working folder.
 */

export type TypedPath = { path: string } | { error: string };

/** A whole path: from the root (/…, \\server\…, C:\…) or from the home folder (~, ~/…). */
const WHOLE_PATH = /^(?:[/\\]|~(?:[/\\]|$)|[A-Za-z]:[/\\])/;

function unquoted(text: string): string {
  const first = text[0];
  if (text.length >= 2 && (first === "'" || first === '"') && text.endsWith(first))
    return text.slice(1, -1).trim();
  return text;
}

/** A file:// URL as the path it names (null when it is not one or cannot be read). */
function fromFileUrl(text: string): string | null {
  if (!/^file:\/\//i.test(text)) return null;
  try {
    const decoded = decodeURIComponent(new URL(text).pathname);
    // file:///C:/Users/… names C:/Users/….
    return /^\/[A-Za-z]:\//.test(decoded) ? decoded.slice(1) : decoded;
  } catch {
    return null;
  }
}

export function typedPath(text: string): TypedPath {
  const bare = unquoted(text.trim());
  const path = fromFileUrl(bare) ?? bare;
  if (path === "") return { error: "Give the path of a .jsonl file or of a folder." };
  if (!WHOLE_PATH.test(path))
    return {
      error: `“${path}” is not a whole path: give it from the top (/…) or from your home folder (~/…).`,
    };
  return { path };
}
