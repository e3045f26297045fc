// jsonArrayPieces joins to JSON.stringify(items, null, indent) for any array and indent: the
// pieces `context --json` writes one by one (json-out.ts) are the text it printed whole before.
import { describe, expect, it } from "vitest";
import { jsonArrayPieces } from "../../../core/text/json-pieces.ts";

const arrays: unknown[][] = [
  [],
  [1],
  [{ a: [1, { b: "line\nbreak" }], c: {} }, [], "x", null],
  [undefined, () => 1, Symbol("s"), { toJSON: () => ({ z: [1, 2] }) }],
  [[[["deep"]]], { e: [] }],
];

describe("jsonArrayPieces", () => {
  it("joins to JSON.stringify's text, compact and indented", () => {
    for (const items of arrays) {
      for (const indent of [0, 2, 4, 12]) {
        expect(jsonArrayPieces(items, indent).join("")).toBe(JSON.stringify(items, null, indent));
      }
    }
  });

  it("gives one piece per item, and the closing bracket", () => {
    expect(jsonArrayPieces([{ a: 1 }, 2], 2)).toEqual(['[\n  {\n    "a": 1\n  }', ",\n  2", "\n]"]);
  });
});
