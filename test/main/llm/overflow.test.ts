// Context-overflow detection (SPEC §9.3): every pattern of the list, the (no body) form, silent
// overflow, and texts that must not count.
import { describe, expect, it } from "vitest";
import { isContextOverflow, isOverflowError } from "../../../main/llm/overflow.ts";

const error = (errorMessage: string) => ({ stopReason: "error", errorMessage });

describe("isOverflowError", () => {
  it.each([
    "400 prompt is too long: 213462 tokens > 200000 maximum",
    "Input is too long for requested model.",
    "Your input exceeds the context window of this model",
    "The input token count (1196265) exceeds the maximum number of tokens allowed (1048575).",
    "This model's maximum prompt length is 131072 but the request contains 537812 tokens.",
    "Please reduce the length of the messages or completion.",
    "This model's maximum context length is 128000 tokens. However, you requested 130000 tokens",
    "Requested 300000 tokens exceeds the limit of 262144",
    "the request exceeds the available context size, try increasing it",
    "input length 9000 is greater than the context length 8192",
    "context window exceeds limit",
    "Exceeded model token limit: 32768",
    "context_length_exceeded",
    "context length exceeded",
    "Too many tokens in request",
    "token limit exceeded",
    'request_too_large: {"type":"error"}',
    "PROMPT IS TOO LONG",
    "400 status code (no body)",
    "413 status code (no body)",
    "413(no body)",
    "400 (no body)",
  ])("detects %s", (text) => {
    expect(isOverflowError(text)).toBe(true);
    expect(isContextOverflow(error(text))).toBe(true);
  });

  it.each([
    "429 Rate limit reached",
    "500 status code (no body)",
    "401 status code (no body)",
    "error: 400 status code (no body)",
    "maximum context length is large",
    "Connection error: fetch failed",
    "",
  ])("does not detect %j", (text) => {
    expect(isOverflowError(text)).toBe(false);
  });
});

describe("isContextOverflow", () => {
  it("needs stopReason error for error texts", () => {
    expect(isContextOverflow({ stopReason: "stop", errorMessage: "prompt is too long" })).toBe(false);
    expect(isContextOverflow({ stopReason: "aborted", errorMessage: "prompt is too long" })).toBe(false);
    expect(isContextOverflow({ stopReason: "error" })).toBe(false);
  });

  it("silent overflow: stop with input + cacheRead above the window", () => {
    const usage = { input: 100_000, cacheRead: 30_000, output: 10 };
    expect(isContextOverflow({ stopReason: "stop", usage }, 128_000)).toBe(true);
    expect(isContextOverflow({ stopReason: "stop", usage }, 130_000)).toBe(false);
    expect(isContextOverflow({ stopReason: "stop", usage }, 129_999)).toBe(true);
    expect(isContextOverflow({ stopReason: "stop", usage })).toBe(false);
    expect(isContextOverflow({ stopReason: "stop", usage }, 0)).toBe(false);
    expect(isContextOverflow({ stopReason: "length", usage }, 1000)).toBe(false);
    expect(isContextOverflow({ stopReason: "toolUse", usage }, 1000)).toBe(false);
    expect(isContextOverflow({ stopReason: "stop" }, 1000)).toBe(false);
    expect(isContextOverflow({ stopReason: "stop", usage: { input: 1001 } }, 1000)).toBe(true);
  });
});
