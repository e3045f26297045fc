/**
 * A refused value's reason in words ("needs a number (it cannot be empty)", "must be at most 20")
 * instead of zod's wording ("Invalid input: expected number, received null"): settings in the CLI
 * and the settings form, and size limits of any request input (schemas.ts). Issues without a
 * wording of their own keep zod's message.
 */
import type { z } from "zod";

/** What follows "needs a number": why the value given is not one. */
function got(input: unknown): string {
  if (input === null || input === undefined || input === "") return " (it cannot be empty)";
  if (typeof input === "number" && Number.isNaN(input)) return ", not NaN";
  if (typeof input === "string")
    return `, not the text "${input.length > 40 ? `${input.slice(0, 40)}…` : input}"`;
  if (typeof input === "number" || typeof input === "boolean") return `, not ${input}`;
  return `, not ${Array.isArray(input) ? "a list" : typeof input}`;
}

const EXPECTED: Record<string, string> = {
  number: "a number",
  int: "a whole number",
  boolean: "true or false",
  string: "text",
  array: "a list",
  object: "an object",
};

/** `input` is the value the issue is about (zod 4 leaves it out of the issue). */
export function issueInWords(issue: z.core.$ZodIssue, input: unknown): string {
  switch (issue.code) {
    case "invalid_type": {
      const expected = EXPECTED[issue.expected];
      return expected ? `needs ${expected}${got(input)}` : issue.message;
    }
    case "too_small":
      if (issue.origin === "number" || issue.origin === "int")
        return `must be at least ${Number(issue.minimum).toLocaleString("en-US")}`;
      if (issue.origin === "string" && Number(issue.minimum) === 1) return "cannot be empty";
      return issue.message;
    case "too_big":
      if (issue.origin === "number" || issue.origin === "int")
        return `must be at most ${Number(issue.maximum).toLocaleString("en-US")}`;
      if (issue.origin === "string")
        return `must be at most ${Number(issue.maximum).toLocaleString("en-US")} characters long`;
      if (issue.origin === "array")
        return `takes at most ${Number(issue.maximum).toLocaleString("en-US")} items`;
      return issue.message;
    case "invalid_format":
      if (issue.format === "url") return "needs an http:// or https:// URL";
      if (issue.format === "regex")
        return "needs a name of letters, digits and _ (not starting with a digit)";
      return issue.message;
    default:
      return issue.message;
  }
}
