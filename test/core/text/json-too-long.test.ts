// toJson on a value whose JSON is longer than V8's longest string: one named error (JsonTooLongError)
// instead of V8's bare "Invalid string length", found without a second, deep-writer attempt; an
// indented text too long is still given compact. Making a real 512 MB text here takes 5–20 s and
// a gigabyte, so V8's RangeError is injected where it is raised (JSON.stringify); V8's own error
// is checked to be the one recognised.
import { afterEach, describe, expect, it, vi } from "vitest";
import { toJson } from "../../../core/text/json-deep.ts";
import {
  isStringLengthError,
  isTooLongError,
  JsonTooLongError,
  MAX_STRING_LENGTH,
} from "../../../core/text/too-long.ts";

const stringify = JSON.stringify;

/** JSON.stringify as V8 behaves when `tooLong(value, indent)` says its text would be past the limit. */
function limitStringify(tooLong: (value: unknown, indent: unknown) => boolean): void {
  vi.spyOn(JSON, "stringify").mockImplementation(((value: unknown, replacer: never, indent: never) => {
    if (tooLong(value, indent)) throw new RangeError("Invalid string length");
    return stringify(value, replacer, indent);
  }) as typeof JSON.stringify);
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("V8's string-length failure", () => {
  it("is what V8 throws past the limit, and is recognised (other RangeErrors are not)", () => {
    let thrown: unknown = null;
    try {
      "x".repeat(MAX_STRING_LENGTH + 1);
    } catch (error) {
      thrown = error;
    }
    expect(isStringLengthError(thrown)).toBe(true);
    expect(isTooLongError(thrown)).toBe(true);
    expect(isStringLengthError(new RangeError("Maximum call stack size exceeded"))).toBe(false);
    expect(isTooLongError(new JsonTooLongError())).toBe(true);
  });
});

describe("toJson of a value whose JSON is too long", () => {
  it("throws JsonTooLongError, a RangeError with a one-line message, at the first attempt", () => {
    const big = { entries: ["huge"] };
    limitStringify((value) => value === big);
    let thrown: unknown = null;
    try {
      toJson(big);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(JsonTooLongError);
    expect(thrown).toBeInstanceOf(RangeError);
    expect((thrown as Error).message).toBe(
      "its JSON is longer than the longest text JavaScript can hold (about 512 MB)",
    );
    // Not retried with the deep writer (which would take as long again to fail).
    expect(vi.mocked(JSON.stringify).mock.calls.filter(([value]) => value === big)).toHaveLength(1);
  });

  it("indented: given compact when that fits, else JsonTooLongError", () => {
    const value = { a: [1, 2, { b: "c" }] };
    limitStringify((v, indent) => v === value && Boolean(indent));
    expect(toJson(value, 2)).toBe(stringify(value));
    vi.restoreAllMocks();
    limitStringify((v) => v === value);
    expect(() => toJson(value, 2)).toThrow(JsonTooLongError);
  });

  it("nested too deep for JSON.stringify and too long: JsonTooLongError from the deep writer", () => {
    let deep: unknown = "leaf";
    for (let i = 0; i < 20_000; i++) deep = [deep];
    // The deep writer stringifies leaves itself: the leaf's text is where the limit is met.
    limitStringify((v) => v === "leaf");
    expect(() => toJson(deep)).toThrow(JsonTooLongError);
  });

  it("other failures are as before: a cycle is a TypeError, a deep value is written", () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(() => toJson(cycle)).toThrow(TypeError);
    let deep: unknown = 1;
    for (let i = 0; i < 20_000; i++) deep = [deep];
    expect(toJson(deep)).toBe(`${"[".repeat(20_000)}1${"]".repeat(20_000)}`);
  });
});
