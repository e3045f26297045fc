// The import worker hashes a file while it is being read (FileDigester, fed whatever part has
// arrived); the digest must be the one of the whole file, however the bytes arrived.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { digestBytes, FileDigester } from "../../../main/library/files.ts";

const sha = (bytes: Buffer): string => createHash("sha256").update(bytes).digest("hex");

/** Feeds `buffer` to a digester in steps of `step` bytes, as a read in progress would. */
function digestInSteps(buffer: Buffer, step: number) {
  const digester = new FileDigester();
  for (let available = 0; available < buffer.length; available += step) digester.advance(buffer, available);
  return digester.finish(buffer);
}

describe("file digest", () => {
  const complete = Buffer.from('{"a":1}\n{"b":"ü"}\r\n\n{"c":3}\n');
  const unterminated = Buffer.concat([complete, Buffer.from('{"d":"half wri')]);
  const hugeLine = Buffer.concat([Buffer.from("x\n"), Buffer.alloc(100_000, 0x61), Buffer.from("\ny")]);

  it("whole file, complete lines, line count — the same for any arrival steps", () => {
    for (const buffer of [complete, unterminated, hugeLine, Buffer.alloc(0), Buffer.from("no newline")]) {
      const end = buffer.lastIndexOf(0x0a) + 1;
      const expected = {
        hash: sha(buffer),
        importedHash: sha(buffer.subarray(0, end)),
        lines: buffer.subarray(0, end).toString("latin1").split("\n").length - 1,
      };
      expect(digestBytes(buffer)).toEqual(expected);
      expect(digestBytes(buffer, sha(buffer))).toEqual(expected);
      for (const step of [1, 3, 7, 1000, 65_536]) expect(digestInSteps(buffer, step)).toEqual(expected);
    }
  });

  it("a file that ends with a newline has one hash for both", () => {
    const digest = digestBytes(complete);
    expect(digest.importedHash).toBe(digest.hash);
    expect(digestBytes(unterminated).importedHash).toBe(digest.hash);
    expect(digestBytes(unterminated).lines).toBe(4);
  });
});
