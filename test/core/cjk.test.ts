// CJK characters as search words (core/text/cjk.ts): what the index and the query are given.
import { describe, expect, it } from "vitest";
import { endsWithCjk, hasCjk, spaceCjk, splitCjkWord, startsWithCjk } from "../../core/text/cjk.ts";

describe("CJK characters as words", () => {
  it("spaces every Han, kana and Hangul character, and leaves other text as it is", () => {
    expect(spaceCjk("このテキストを検索")).toBe(" こ の テ キ ス ト を 検 索 ");
    expect(spaceCjk("Reactコンポーネント v2")).toBe("React コ ン ポ ー ネ ン ト  v2");
    expect(spaceCjk("세션 검색을")).toBe(" 세 션   검 색 을 ");
    expect(spaceCjk("the parser, café — naïve 🙂")).toBe("the parser, café — naïve 🙂");
    // A character outside the BMP (CJK Extension B), and a combining sound mark kept with its kana.
    expect(spaceCjk("a𠀋b")).toBe("a 𠀋 b");
    expect(spaceCjk("か\u3099き")).toBe(" か\u3099 き ");
    // Punctuation is no word, as before.
    expect(spaceCjk("はい。")).toBe(" は い 。");
  });

  it("splits a query word the same way", () => {
    expect(splitCjkWord("検索")).toEqual(["検", "索"]);
    expect(splitCjkWord("Reactコンポ")).toEqual(["React", "コ", "ン", "ポ"]);
    expect(splitCjkWord("parser")).toEqual(["parser"]);
    expect(splitCjkWord("검")).toEqual(["검"]);
  });

  it("tells CJK text from other text", () => {
    expect(hasCjk("plain text — with “quotes” and 🙂")).toBe(false);
    expect(hasCjk("x 𠀋")).toBe(true);
    expect(startsWithCjk("コンポ")).toBe(true);
    expect(startsWithCjk("Reactコンポ")).toBe(false);
    expect(endsWithCjk("Reactコンポ")).toBe(true);
    expect(endsWithCjk("コンポReact")).toBe(false);
  });
});
