// jsonPieces joins to JSON.stringify(value)'s text at any number of opened levels: undefined,
// function and symbol members skipped (null in arrays), toJSON and wrapper objects as JSON.stringify
// takes them, strings needing escapes, empty containers, deep values below the levels.
import { describe, expect, it } from "vitest";
import { jsonPieces } from "../../../core/text/json-pieces.ts";

const values: unknown[] = [
  null,
  0,
  'a "quoted" \n line 🌲 \u0001',
  [],
  {},
  { ok: true, value: { entries: [{ entry: { id: "a", n: [1, 2] }, line: 1, tokens: 3 }], labels: {} } },
  { a: undefined, b: () => 1, c: Symbol("s"), d: 1, e: [undefined, () => 1, Symbol("t"), 2] },
  { first: undefined, second: 2 },
  { date: new Date(0), wrapped: [new Number(1), new String("s"), new Boolean(false)] },
  { custom: { toJSON: (key: string) => ({ key, inner: [key] }) }, gone: { toJSON: () => undefined } },
  [[[[[["deep", { x: [] }]]]]]],
  { "": 1, "1": "integer-like key first", b: { "2": 2, a: 1 } },
];

describe("jsonPieces", () => {
  it("joins to JSON.stringify's text at 0 to 5 opened levels", () => {
    for (const value of values) {
      for (let levels = 0; levels <= 5; levels++) {
        expect(jsonPieces(value, levels).join("")).toBe(JSON.stringify(value));
      }
    }
  });

  it("gives nothing for what JSON.stringify gives undefined for", () => {
    expect(jsonPieces(undefined, 3)).toEqual([]);
    expect(jsonPieces(() => 1, 3)).toEqual([]);
  });

  it("opens the levels asked for: a list's items are one piece each", () => {
    const answer = { ok: true, value: { items: [{ a: 1 }, { b: [2] }] } };
    expect(jsonPieces(answer, 3)).toEqual([
      "{",
      '"ok":',
      "true",
      ',"value":',
      "{",
      '"items":',
      "[",
      '{"a":1}',
      ",",
      '{"b":[2]}',
      "]",
      "}",
      "}",
    ]);
  });
});
