/**
 * A JSON parse for one-line previews of very large values (a 20 MB tool output): every string
 * longer than a limit comes back cut to its beginning, so only the small skeleton and those
 * beginnings are decoded and allocated. Strings are found with indexOf, never char by char.
 */

/** Chars (as written in the JSON) a long string keeps. */
export const LEAN_STRING_CHARS = 4096;

/**
 * A long string is only cut when its kept beginning, whitespace runs folded, still has more than
 * this many chars: a preview that shows the first few hundred then reads exactly the same.
 */
const LEAN_MIN_FOLDED = 1024;

/**
 * `JSON.parse(text)`, except that a string value longer than `keep` chars (as written) is cut to
 * its beginning when that beginning shows more than LEAN_MIN_FOLDED chars once whitespace is
 * folded. Throws as JSON.parse does on text that is not JSON.
 */
export function parseLean(text: string, keep = LEAN_STRING_CHARS): unknown {
  const parts: string[] = [];
  let copied = 0;
  let at = text.indexOf('"');
  while (at !== -1) {
    const end = stringEnd(text, at);
    if (end === -1) break;
    if (end - at - 1 > keep) {
      const cut = cutRaw(text.slice(at + 1, at + 1 + keep));
      if (cut !== null) {
        parts.push(text.slice(copied, at + 1), cut, '"');
        copied = end + 1;
      }
    }
    at = text.indexOf('"', end + 1);
  }
  if (copied === 0) return JSON.parse(text);
  parts.push(text.slice(copied));
  return JSON.parse(parts.join(""));
}

/** Where the string opened by the quote at `open` ends (its closing quote), or -1. */
function stringEnd(text: string, open: number): number {
  let at = text.indexOf('"', open + 1);
  while (at !== -1) {
    let backslashes = 0;
    while (text.charCodeAt(at - 1 - backslashes) === 92) backslashes++;
    if (backslashes % 2 === 0) return at;
    at = text.indexOf('"', at + 1);
  }
  return -1;
}

/**
 * `raw` (the beginning of a string as written) without a cut escape at its end, or null when it
 * shows too little once folded (the string is then kept whole).
 */
function cutRaw(raw: string): string | null {
  // An escape is at most 6 chars (\uXXXX): dropping up to 6 ends on a whole one.
  for (let drop = 0; drop <= 6; drop++) {
    const candidate = raw.slice(0, raw.length - drop);
    let decoded: string;
    try {
      decoded = JSON.parse(`"${candidate}"`) as string;
    } catch {
      continue;
    }
    return decoded.replace(/\s+/g, " ").trim().length > LEAN_MIN_FOLDED ? candidate : null;
  }
  return null;
}
