// A file that the library cannot store (read-only library, full disk) is reported with the
// library as the cause, not in SQLite's words, which read as if the session file were at fault.
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { importPath } from "../../../main/library/import.ts";
import { copyFixture, type Library, makeLibrary } from "./helpers.ts";

let lib: Library;
beforeEach(() => {
  lib = makeLibrary();
});
afterEach(() => lib.cleanup());

describe("import into a library that cannot be written", () => {
  it("says the library is read-only, for one file and for a folder", () => {
    const file = copyFixture("tree-00.jsonl", lib.dir, "sessions/one.jsonl");
    copyFixture("tree-02.jsonl", lib.dir, "sessions/two.jsonl");
    const readOnly = new BetterSqlite3(lib.dbFile, { readonly: true });
    try {
      const single = importPath(readOnly, file);
      expect(single.files[0]?.status).toBe("failed");
      expect(single.files[0]?.reason).toBe("the library is read-only (its file or folder cannot be written)");
      const folder = importPath(readOnly, path.join(lib.dir, "sessions"));
      expect(folder.failed).toBe(2);
      for (const report of folder.files) {
        expect(report.reason).toMatch(/the library is read-only/);
        expect(report.reason).not.toMatch(/readonly database/);
      }
    } finally {
      readOnly.close();
    }
  });
});
