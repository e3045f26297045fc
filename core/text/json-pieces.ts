/**
 * JSON text as pieces whose joined text is toJson's: an array whose whole text is longer than one
 * string holds (an LLM view of hundreds of MB) can still be written out piece by piece, and an
 * answer of 100k entries is made item by item (several times faster than one JSON.stringify of
 * the whole, which V8 builds into one ever-growing string).
 */
import { prepare, toJson } from "./json-deep.ts";

/** The pieces; JsonTooLongError (too-long.ts) when one item's own JSON is too long for a string. */
export function jsonArrayPieces(items: readonly unknown[], indent = 0): string[] {
  if (items.length === 0) return ["[]"];
  const gap = " ".repeat(Math.min(10, Math.max(0, Math.floor(indent))));
  const pieces = items.map((item, index) => {
    // As JSON.stringify writes an array's undefined, function or symbol item.
    const text = (toJson(item, indent) as string | undefined) ?? "null";
    // Line breaks in JSON text are only its indentation (a string's are escaped).
    const body = gap ? text.replaceAll("\n", `\n${gap}`) : text;
    const before = index === 0 ? "[" : ",";
    return gap ? `${before}\n${gap}${body}` : `${before}${body}`;
  });
  pieces.push(gap ? "\n]" : "]");
  return pieces;
}

/**
 * The compact JSON of `value` as pieces: objects and arrays are opened down to `levels` levels
 * (their punctuation and keys are pieces), anything below is one toJson piece each. The pieces
 * join to JSON.stringify(value)'s text (but for a toJSON whose result has a toJSON of its own,
 * which is called too).
 * Throws what toJson throws (JsonTooLongError for one piece too long), before returning anything.
 */
export function jsonPieces(value: unknown, levels: number): string[] {
  const out: string[] = [];
  if (!writePieces("", value, levels, out)) return [];
  return out;
}

/** Pushes the pieces of `raw` (under `key`); false when JSON.stringify writes nothing for it. */
function writePieces(key: string, raw: unknown, levels: number, out: string[]): boolean {
  // toJSON is called here with the value's key (JSON.stringify of the value alone would give "").
  const value = raw !== null && typeof raw === "object" ? prepare(key, raw) : raw;
  if (levels <= 0 || value === null || typeof value !== "object") {
    const text = toJson(value) as string | undefined;
    if (text === undefined) return false;
    out.push(text);
    return true;
  }
  if (Array.isArray(value)) {
    out.push("[");
    value.forEach((item, index) => {
      if (index > 0) out.push(",");
      if (!writePieces(String(index), item, levels - 1, out)) out.push("null");
    });
    out.push("]");
    return true;
  }
  out.push("{");
  let wrote = false;
  for (const name of Object.keys(value)) {
    const mark = out.length;
    out.push(`${wrote ? "," : ""}${JSON.stringify(name)}:`);
    if (writePieces(name, (value as Record<string, unknown>)[name], levels - 1, out)) wrote = true;
    else out.length = mark;
  }
  out.push("}");
  return true;
}
