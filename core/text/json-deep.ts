/**
 * JSON text of any value, however deeply nested: JSON.stringify, except that a value nested too
 * deep for its recursion (a few thousand levels, where it throws RangeError) is written by an
 * explicit-stack writer giving the same text. Entry JSON may nest that deep (JSON.parse reads it).
 */
import { isStringLengthError, JsonTooLongError } from "./too-long.ts";

type Frame = {
  /** The array, or the object's own keys paired with the object. */
  items: unknown[];
  keys: string[] | null;
  holder: unknown;
  next: number;
  wrote: boolean;
  closer: string;
  indent: string;
};

/**
 * JSON.stringify(value, null, indent) for a value of any depth (cycles still throw TypeError);
 * indented text too long for a string is given without indentation (the same JSON value). A value
 * whose JSON is too long for a string even so throws JsonTooLongError (too-long.ts).
 */
export function toJson(value: unknown, indent?: number): string {
  try {
    return anyDepthJson(value, indent);
  } catch (error) {
    if (!isStringLengthError(error)) throw error;
  }
  // Indented, the text may be too long where the compact text is not: the same JSON value.
  if (indent) {
    try {
      return anyDepthJson(value, 0);
    } catch (error) {
      if (!isStringLengthError(error)) throw error;
    }
  }
  throw new JsonTooLongError();
}

/** JSON.stringify, or the explicit-stack writer where its recursion is too deep (RangeError too). */
function anyDepthJson(value: unknown, indent: number | undefined): string {
  try {
    return JSON.stringify(value, null, indent);
  } catch (error) {
    if (!(error instanceof RangeError) || isStringLengthError(error)) throw error;
  }
  return deepToJson(value, indent ?? 0);
}

/** What JSON.stringify writes for `value` under `key` before recursion: a leaf's text, "" to skip, or the value to open. */
export function prepare(key: string, raw: unknown): unknown {
  let value = raw;
  if (value !== null && typeof value === "object" && typeof (value as { toJSON?: unknown }).toJSON === "function") {
    value = (value as { toJSON: (key: string) => unknown }).toJSON(key);
  }
  if (value instanceof Number || value instanceof String || value instanceof Boolean) value = value.valueOf();
  return value;
}

function leaf(value: unknown): string | undefined | null {
  if (value === null) return "null";
  switch (typeof value) {
    case "string":
    case "number":
    case "boolean":
    case "bigint":
      return JSON.stringify(value);
    case "undefined":
    case "function":
    case "symbol":
      return undefined;
    default:
      return null; // an object or array, to open
  }
}

function deepToJson(root: unknown, indentWidth: number): string {
  const gap = " ".repeat(Math.min(10, Math.max(0, indentWidth)));
  const out: string[] = [];
  const open = new Set<object>();
  const stack: Frame[] = [];
  const push = (value: object, indent: string): void => {
    if (open.has(value)) throw new TypeError("Converting circular structure to JSON");
    open.add(value);
    const isArray = Array.isArray(value);
    const keys = isArray ? null : Object.keys(value);
    out.push(isArray ? "[" : "{");
    stack.push({
      items: isArray ? (value as unknown[]) : (keys as string[]).map((k) => (value as Record<string, unknown>)[k]),
      keys,
      holder: value,
      next: 0,
      wrote: false,
      closer: isArray ? "]" : "}",
      indent,
    });
  };
  const first = prepare("", root);
  const firstLeaf = leaf(first);
  if (firstLeaf !== null) return firstLeaf as string;
  push(first as object, "");
  while (stack.length > 0) {
    const frame = stack[stack.length - 1] as Frame;
    if (frame.next >= frame.items.length) {
      stack.pop();
      open.delete(frame.holder as object);
      if (frame.wrote && gap) out.push(`\n${frame.indent}`);
      out.push(frame.closer);
      continue;
    }
    const index = frame.next++;
    const key = frame.keys ? (frame.keys[index] as string) : String(index);
    const value = prepare(key, frame.items[index]);
    let text = leaf(value);
    if (text === undefined) {
      if (frame.keys) continue; // an object skips such a member
      text = "null";
    }
    const inner = frame.indent + gap;
    out.push(frame.wrote ? "," : "");
    if (gap) out.push(`\n${inner}`);
    frame.wrote = true;
    if (frame.keys) out.push(`${JSON.stringify(key)}:${gap ? " " : ""}`);
    if (text === null) push(value as object, inner);
    else out.push(text);
  }
  return out.join("");
}
