/**
 * The longest text JavaScript holds: V8 makes no string past 2^29 − 24 UTF-16 units (about 512 MB
 * of ASCII) and throws a bare RangeError. This names that failure so callers can say what was too
 * long and what to do instead, in one line.
 */

/** V8's maximum string length in UTF-16 code units (String.prototype.length). */
export const MAX_STRING_LENGTH = 2 ** 29 - 24;

/** V8's error for a string past MAX_STRING_LENGTH (JSON.stringify, join, concatenation, repeat). */
export function isStringLengthError(error: unknown): boolean {
  return error instanceof RangeError && error.message === "Invalid string length";
}

/** toJson's failure for a value whose JSON is longer than MAX_STRING_LENGTH: nothing was written. */
export class JsonTooLongError extends RangeError {
  constructor() {
    super("its JSON is longer than the longest text JavaScript can hold (about 512 MB)");
    this.name = "JsonTooLongError";
  }
}

/** A failure of making one text too long: V8's own, or toJson's. */
export function isTooLongError(error: unknown): boolean {
  return error instanceof JsonTooLongError || isStringLengthError(error);
}
