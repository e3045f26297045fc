// The import form's reading of a typed or pasted path (typed-path.ts): quotes and file:// URLs
// as file managers and terminals hand them over, Windows and home-folder paths, relative ones refused.
import { describe, expect, it } from "vitest";
import { typedPath } from "../../renderer/src/features/library/typed-path.ts";

describe("typedPath", () => {
  it("takes whole paths as they are, trimmed, and strips one pair of quotes", () => {
    expect(typedPath("  /home/me/s.jsonl ")).toEqual({ path: "/home/me/s.jsonl" });
    expect(typedPath("'/home/me/my s.jsonl'")).toEqual({ path: "/home/me/my s.jsonl" });
    expect(typedPath('"C:\\Users\\me\\s.jsonl"')).toEqual({ path: "C:\\Users\\me\\s.jsonl" });
    expect(typedPath("~")).toEqual({ path: "~" });
    expect(typedPath("~/.pi/agent/sessions")).toEqual({ path: "~/.pi/agent/sessions" });
    expect(typedPath("\\\\server\\share\\s.jsonl")).toEqual({ path: "\\\\server\\share\\s.jsonl" });
    expect(typedPath("'/it's/odd.jsonl'")).toEqual({ path: "/it's/odd.jsonl" });
  });

  it("reads file:// URLs, percent-encoding and Windows drives included", () => {
    expect(typedPath("file:///home/me/my%20sessions/a.jsonl")).toEqual({
      path: "/home/me/my sessions/a.jsonl",
    });
    expect(typedPath("file:///C:/Users/me/a.jsonl")).toEqual({ path: "C:/Users/me/a.jsonl" });
  });

  it("refuses relative paths and nothing at all, in words", () => {
    expect(typedPath("sessions/a.jsonl")).toEqual({
      error:
        "“sessions/a.jsonl” is not a whole path: give it from the top (/…) or from your home folder (~/…).",
    });
    expect(typedPath("~other/a.jsonl")).toHaveProperty("error");
    expect(typedPath("''")).toHaveProperty("error");
  });
});
