// Contract inputs refused for their size say the limit in words (the renderer shows these after
// "Renaming failed:", the CLI after "error:"), not zod's "Too big: expected string to have <=1000".
import { describe, expect, it } from "vitest";
import { describeInputError, inputSchemas } from "../../core/api/schemas.ts";

function refusal(channel: keyof typeof inputSchemas, input: unknown): string {
  const parsed = inputSchemas[channel].safeParse(input);
  if (parsed.success) throw new Error(`${channel} accepted the input`);
  return describeInputError(parsed.error);
}

describe("size limits of contract inputs in words", () => {
  it("a title, a label and a search longer than 1,000 characters, and too many folders", () => {
    const long = "x".repeat(1200);
    expect(refusal("edits:rename", { sessionId: "s", title: long })).toBe(
      "title: must be at most 1,000 characters long",
    );
    expect(refusal("edits:label", { sessionId: "s", targetId: "e", label: long })).toBe(
      "label: must be at most 1,000 characters long",
    );
    expect(refusal("library:search", { query: long })).toBe("query: must be at most 1,000 characters long");
    expect(refusal("library:set-folders", { folders: Array.from({ length: 101 }, () => "/f") })).toBe(
      "folders: takes at most 100 items",
    );
  });
});
