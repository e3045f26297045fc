// The note that says how a query in search-engine syntax is taken (app search box, CLI search).
import { describe, expect, it } from "vitest";
import { searchSyntaxNote } from "../../../core/text/search-syntax.ts";

describe("searchSyntaxNote", () => {
  it("says that a - before a word excludes nothing (the word is searched like the others)", () => {
    expect(searchSyntaxNote("parser -refactor")).toContain("a - before a word");
    expect(searchSyntaxNote("-refactor")).toContain("a - before a word");
    expect(searchSyntaxNote("parser OR lexer")).toContain("OR, AND and NOT are searched as words");
  });

  it("says nothing for plain words, hyphenated ones included", () => {
    expect(searchSyntaxNote("parser")).toBeNull();
    expect(searchSyntaxNote("user-message-selector")).toBeNull();
    expect(searchSyntaxNote("--")).toBeNull();
  });
});
