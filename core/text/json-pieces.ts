/**
 * The JSON of an array as pieces, one per item (brackets and separators included), whose joined
 * text is toJson(items, indent)'s: an array whose whole text is longer than one string holds
 * (an LLM view of hundreds of MB) can still be written out piece by piece.
 */
import { toJson } from "./json-deep.ts";

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
