// contentWithText: the edited text put back into a message's blocks, only where it changed.
import { describe, expect, it } from "vitest";
import { contentWithText, editableText } from "../../core/session/edit-text.ts";

const IMAGE = { type: "image", data: "AAAA", mimeType: "image/png" };
const content = [{ type: "text", text: "one" }, IMAGE, { type: "text", text: "two" }];

describe("contentWithText", () => {
  it("joins text blocks with a newline for the editor; a string stays a string", () => {
    expect(editableText(content)).toBe("one\ntwo");
    expect(editableText("plain")).toBe("plain");
    expect(contentWithText("plain", "other")).toBe("other");
  });

  it("an insertion at the end of a block or the start of the next goes into that block", () => {
    expect(contentWithText(content, "one!\ntwo")).toEqual([
      { type: "text", text: "one!" },
      IMAGE,
      content[2],
    ]);
    expect(contentWithText(content, "one\n!two")).toEqual([
      content[0],
      IMAGE,
      { type: "text", text: "!two" },
    ]);
  });

  it("removing the newline between two blocks joins them; the image stays after the text", () => {
    expect(contentWithText(content, "one two")).toEqual([{ type: "text", text: "one two" }, IMAGE]);
  });

  it("a message of images only gets its text in front", () => {
    expect(contentWithText([IMAGE], "look")).toEqual([{ type: "text", text: "look" }, IMAGE]);
  });

  it("repeated characters at the change still give the right block (prefix and suffix do not overlap)", () => {
    const same = [{ type: "text", text: "aa" }, IMAGE, { type: "text", text: "aa" }];
    expect(contentWithText(same, "aa\naaa")).toEqual([same[0], IMAGE, { type: "text", text: "aaa" }]);
    expect(contentWithText(same, "a\naa")).toEqual([{ type: "text", text: "a" }, IMAGE, same[2]]);
  });

  it("line breaks a text box gives back as LF (CRLF, CR) count as unchanged; untouched blocks keep theirs", () => {
    const crlf = [{ type: "text", text: "line one\r\nline two" }, IMAGE, { type: "text", text: "tail" }];
    expect(contentWithText(crlf, "line one\nline two\ntail")).toBe(crlf);
    expect(contentWithText("a\r\nb", "a\nb")).toBe("a\r\nb");
    expect(contentWithText(crlf, "line one\nline two\ntail!")).toEqual([
      crlf[0],
      IMAGE,
      { type: "text", text: "tail!" },
    ]);
  });
});
