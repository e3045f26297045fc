// Long texts cut for display (core/text/display-cut.ts): whole lines when they fit, never half a
// surrogate pair, pieces that join back to the text, and sizes in UTF-8 bytes and lines.
import { describe, expect, it } from "vitest";
import { countLines, cutForDisplay, splitForDisplay, utf8Length } from "../../core/text/display-cut.ts";

const isLoneSurrogateAtEnd = (text: string) => /[\ud800-\udbff]$/.test(text);

describe("cutForDisplay", () => {
  it("returns a text that fits whole", () => {
    expect(cutForDisplay("abc\ndef", 7)).toEqual({ shown: "abc\ndef", hiddenChars: 0 });
    expect(cutForDisplay("", 10)).toEqual({ shown: "", hiddenChars: 0 });
  });

  it("ends after the last line break that fits", () => {
    const text = "line one\nline two\nline three\n";
    const cut = cutForDisplay(text, 20);
    expect(cut.shown).toBe("line one\nline two\n");
    expect(cut.hiddenChars).toBe(text.length - cut.shown.length);
    // A line break exactly at the limit ends the shown part.
    expect(cutForDisplay("abcd\nefgh", 5).shown).toBe("abcd\n");
  });

  it("cuts one very long line at the limit instead of showing almost nothing", () => {
    const text = `a\n${"x".repeat(1000)}`;
    const cut = cutForDisplay(text, 100);
    expect(cut.shown).toBe(`a\n${"x".repeat(98)}`);
    expect(cut.hiddenChars).toBe(text.length - 100);
  });

  it("never splits a surrogate pair (an emoji) at the limit", () => {
    const text = "🙂".repeat(10); // 20 code units, no line break
    for (let limit = 2; limit < 20; limit++) {
      const cut = cutForDisplay(text, limit);
      expect(isLoneSurrogateAtEnd(cut.shown)).toBe(false);
      expect(cut.shown.length).toBeLessThanOrEqual(limit);
      expect(cut.shown + text.slice(cut.shown.length)).toBe(text);
      expect([...cut.shown].every((char) => char === "🙂")).toBe(true);
    }
    expect(cutForDisplay(text, 1).shown).toBe("🙂");
  });

  it("keeps multi-byte characters whole and counts what is hidden in code units", () => {
    const text = `déjà vu 中文\n${"中".repeat(50)}\nnaïve`;
    const cut = cutForDisplay(text, 20);
    expect(cut.shown).toBe("déjà vu 中文\n");
    expect(cut.hiddenChars).toBe(text.length - "déjà vu 中文\n".length);
    expect(text.startsWith(cut.shown)).toBe(true);
  });
});

describe("splitForDisplay", () => {
  it("gives pieces within the limit that join back to the whole text", () => {
    const lines = Array.from({ length: 500 }, (_, i) => `${i} ${"🙂é中".repeat(i % 13)}`);
    const text = `${lines.join("\n")}\n${"🙂".repeat(300)}`;
    const pieces = splitForDisplay(text, 97);
    expect(pieces.join("")).toBe(text);
    for (const piece of pieces) {
      expect(piece.length).toBeLessThanOrEqual(97);
      expect(isLoneSurrogateAtEnd(piece)).toBe(false);
    }
    expect(splitForDisplay("", 10)).toEqual([""]);
  });
});

describe("utf8Length and countLines", () => {
  it("counts UTF-8 bytes as TextEncoder does, lone surrogates as U+FFFD", () => {
    for (const text of ["", "ascii", "déjà", "中文", "🙂 ok", "a\ud800b", "\udc00", "x\ud83d"]) {
      expect(utf8Length(text)).toBe(new TextEncoder().encode(text).length);
    }
  });

  it("counts lines; a final line break starts no new one", () => {
    expect(countLines("")).toBe(0);
    expect(countLines("one")).toBe(1);
    expect(countLines("one\n")).toBe(1);
    expect(countLines("one\ntwo")).toBe(2);
    expect(countLines("\n\n")).toBe(2);
  });
});
