// The CLI fits its own lines to a terminal's width: measured in columns (a CJK character or an
// emoji takes 2, a combining mark none), cut with "…", word-wrapped with a hanging indent, a word
// longer than a line broken where the line ends — never a line wider than asked, never half a
// character or half an emoji sequence.
import { describe, expect, it } from "vitest";
import { cutToColumns, fitFields, textColumns, wrapToColumns } from "../../../core/text/columns.ts";

const FAMILY = "👨‍👩‍👧"; // one grapheme: three emoji joined by ZWJ
const FLAG = "🇫🇷"; // two regional indicators
const HEART = "❤️"; // text-default symbol with the emoji presentation selector
const E_ACUTE = "e\u0301"; // e + combining acute

describe("textColumns", () => {
  it("counts ASCII as 1, CJK and fullwidth as 2, emoji as 2, combining marks as 0", () => {
    expect(textColumns("hello")).toBe(5);
    expect(textColumns("日本語")).toBe(6);
    expect(textColumns("한국어")).toBe(6);
    expect(textColumns("ＡＢ")).toBe(4);
    expect(textColumns("🌳")).toBe(2);
    expect(textColumns(FAMILY)).toBe(2);
    expect(textColumns(FLAG)).toBe(2);
    expect(textColumns(HEART)).toBe(2);
    expect(textColumns(E_ACUTE)).toBe(1);
    expect(textColumns("a\u200bb")).toBe(2);
    expect(textColumns("··—…")).toBe(4);
  });
});

describe("cutToColumns", () => {
  it("leaves text that fits as it is", () => {
    expect(cutToColumns("short", 5)).toBe("short");
    expect(cutToColumns("日本", 4)).toBe("日本");
  });

  it("cuts with … and never splits a wide character or an emoji sequence", () => {
    expect(cutToColumns("hello world", 8)).toBe("hello w…");
    // 5 columns: two CJK characters (4) would leave no room for "…"; one and "…" is 3.
    expect(cutToColumns("日本語です", 5)).toBe("日本…");
    expect(cutToColumns("日本語です", 6)).toBe("日本…");
    expect(cutToColumns(`ab${FAMILY}cd`, 4)).toBe("ab…");
    expect(cutToColumns(`ab${FAMILY}cd`, 5)).toBe(`ab${FAMILY}…`);
    expect(cutToColumns(`${E_ACUTE}${E_ACUTE}${E_ACUTE}x`, 3)).toBe(`${E_ACUTE}${E_ACUTE}…`);
    for (let width = 1; width < 20; width++) {
      const cut = cutToColumns(`a日${FLAG}b${HEART}c語${FAMILY}ddd`, width);
      expect(textColumns(cut), `width ${width}`).toBeLessThanOrEqual(width);
    }
  });
});

/** Every non-space grapheme of `text`, in order: wrapping only moves line breaks. */
function ink(text: string): string {
  return text.replace(/\s+/g, "");
}

describe("wrapToColumns", () => {
  it("breaks at spaces, continues after the hanging indent, keeps a line that fits", () => {
    expect(wrapToColumns("one two three four", 9, "  ")).toEqual(["one two", "  three", "  four"]);
    expect(wrapToColumns("fits exactly", 12)).toEqual(["fits exactly"]);
    expect(wrapToColumns("a\nb c d", 3)).toEqual(["a", "b c", "d"]);
  });

  it("breaks a word longer than the width where the line ends", () => {
    const path = "/home/someone/a/very/long/path/to/some/session-file.jsonl";
    const lines = wrapToColumns(`imported ${path}`, 20, "    ");
    for (const line of lines) expect(textColumns(line), line).toBeLessThanOrEqual(20);
    expect(ink(lines.join(""))).toBe(ink(`imported ${path}`));
    expect(lines.slice(1).every((line) => line.startsWith("    "))).toBe(true);
  });

  it("wraps CJK text (no spaces) and emoji by columns", () => {
    const text = "これは日本語の長い文章です。スペースがありません。🌳🌳🌳 and then some words";
    for (const width of [10, 11, 20, 21]) {
      const lines = wrapToColumns(text, width, "  ");
      for (const line of lines) expect(textColumns(line), `${width}: ${line}`).toBeLessThanOrEqual(width);
      expect(ink(lines.join(""))).toBe(ink(text));
    }
  });

  it("never gives a line wider than asked, whatever the text (and keeps all of it)", () => {
    const pieces = [
      "a",
      "word",
      "longerwordthanmost",
      " ",
      " ",
      "日本",
      FAMILY,
      FLAG,
      HEART,
      E_ACUTE,
      "—",
      "x".repeat(45),
    ];
    let seed = 7;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed;
    };
    for (let round = 0; round < 300; round++) {
      const text = Array.from({ length: 1 + (next() % 40) }, () => pieces[next() % pieces.length]).join("");
      const width = 4 + (next() % 80);
      const hang = " ".repeat(next() % 12);
      const lines = wrapToColumns(text, width, hang);
      for (const line of lines)
        expect(textColumns(line), JSON.stringify({ text, width, line })).toBeLessThanOrEqual(width);
      expect(ink(lines.join(""))).toBe(ink(text));
    }
  });
});

describe("fitFields", () => {
  it("puts fields that do not fit on the next line, after the indent", () => {
    const fields = [
      "01a2361e-31d7-705e-a2fc-0e5296368179",
      "2026-12-05 09:53:30",
      "350 entries, 13 compactions",
      "/home/dev/project-2",
    ];
    expect(fitFields(fields, undefined)).toBe(fields.join("  "));
    expect(fitFields(fields, 200)).toBe(fields.join("  "));
    expect(fitFields(fields, 80).split("\n")).toEqual([
      "01a2361e-31d7-705e-a2fc-0e5296368179  2026-12-05 09:53:30",
      "    350 entries, 13 compactions  /home/dev/project-2",
    ]);
  });
});
