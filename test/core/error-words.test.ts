// What a user reads for a model error: a rate limit said in words, with the
// wait its retry hint asks for; the raw text (which the retry policy parses) is left as it is.
import { describe, expect, it } from "vitest";
import { modelErrorInWords } from "../../core/llm/error-words.ts";
import { isRetryableError, parseRetryAfterHint } from "../../main/llm/retry.ts";

const NOW = Date.parse("2026-12-04T16:00:00.000Z");

describe("modelErrorInWords", () => {
  it.each([
    [
      "429 Rate limit reached for fake-branch (retry-after=20)",
      "The model's server is rate-limiting requests (429: Rate limit reached for fake-branch); it asked to wait 20 s",
    ],
    [
      "Summarization failed: 429 Too many requests (retry-after-ms=1500, retry-after=2)",
      "Summarization failed: The model's server is rate-limiting requests (429: Too many requests); it asked to wait 2 s",
    ],
    ["429 Slow down", "The model's server is rate-limiting requests (429: Slow down)"],
    [
      "503 Service Unavailable (retry-after=300)",
      "503 Service Unavailable; it asked to wait 5 min",
    ],
    [
      "429 Quota (x-ratelimit-reset=1796400000)",
      "The model's server is rate-limiting requests (429: Quota); it allows a retry now",
    ],
    [
      "429 Busy (retry-after=Fri, 04 Dec 2026 16:00:30 GMT)",
      "The model's server is rate-limiting requests (429: Busy); it asked to wait 30 s",
    ],
    ["400 maximum context length exceeded", "400 maximum context length exceeded"],
    ["Connection error: fetch failed", "Connection error: fetch failed"],
  ])("%s", (raw, words) => {
    expect(modelErrorInWords(raw, NOW)).toBe(words);
  });

  it("leaves the raw text the retry policy parses as it was", () => {
    const raw = "429 Rate limit reached for fake-branch (retry-after=20)";
    modelErrorInWords(raw, NOW);
    expect(parseRetryAfterHint(raw, NOW)).toBe(20_000);
    expect(isRetryableError(raw)).toBe(true);
  });
});
