// flatten folds only a prefix of long texts (tree snippets of 100 KB tool outputs): it must
// give exactly what folding the whole text gives, whatever the whitespace.
import { describe, expect, it } from "vitest";
import { counted, flatten, isFoldedSpace } from "../../core/session/describe.ts";

function foldWhole(text: string, width: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > width ? `${flat.slice(0, Math.max(0, width - 1))}…` : flat;
}

/** Deterministic pseudo-random texts: words, long whitespace runs, unicode spaces and line breaks. */
function* texts(): Generator<string> {
  let seed = 7;
  const next = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  const pieces = [
    "word",
    "é",
    "🌲",
    " ",
    "\n",
    "\t",
    "\r\n",
    "\u00a0",
    "\u2028",
    " ".repeat(300),
    "\n".repeat(1000),
    // Every other white space /\s/ knows, and code units next to them that are none.
    "\v\f\u1680\u2000\u200a\u2029\u202f\u205f\u3000\ufeff",
    "\u180e\u200b\u0085\ud83c",
  ];
  for (let n = 0; n < 400; n++) {
    let text = "";
    const length = Math.floor(next() * 400);
    for (let i = 0; i < length; i++) text += pieces[Math.floor(next() * pieces.length)];
    yield text;
  }
  yield "";
  yield " ".repeat(100_000);
  yield `${" ".repeat(100_000)}x`;
  yield `${"a ".repeat(50_000)}`;
}

describe("flatten", () => {
  it("equals folding the whole text, for every width", () => {
    for (const text of texts()) {
      for (const width of [0, 1, 5, 80, 200]) expect(flatten(text, width)).toBe(foldWhole(text, width));
    }
  });
});

describe("isFoldedSpace", () => {
  it("is /\\s/ (and what trim removes) for every UTF-16 code unit", () => {
    for (let code = 0; code <= 0xffff; code++) {
      const char = String.fromCharCode(code);
      expect([code, isFoldedSpace(code)]).toEqual([code, /\s/.test(char)]);
      expect(char.trim() === "").toBe(isFoldedSpace(code));
    }
  });
});

describe("counted", () => {
  it("puts the noun in the number the count asks for", () => {
    expect(counted(1, "compaction")).toBe("1 compaction");
    expect(counted(0, "compaction")).toBe("0 compactions");
    expect(counted(2, "entry", "entries")).toBe("2 entries");
    expect(counted(1, "entry", "entries")).toBe("1 entry");
  });
});
