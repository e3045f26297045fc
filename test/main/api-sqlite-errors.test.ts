// SQLite failures reach the user as a sentence they can act on, not as SQLite's own words: a
// library another process keeps writing ("database is locked") is said to be busy.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Api, createApi } from "../../main/api/dispatch.ts";
import { toApiError } from "../../main/api/errors.ts";
import { createAppContext } from "../../main/app-context.ts";
import { type Database, openDatabase } from "../../main/store/open.ts";

let dir: string;
let api: Api;
let other: Database;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "canopy-busy-"));
  const dbPath = path.join(dir, "library.db");
  api = createApi(createAppContext({ dbPath, seedDemo: false, loadUserHooks: false, env: {} }));
  other = openDatabase(dbPath);
});

afterEach(() => {
  other.close();
  api.ctx.db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("SQLite errors in words", () => {
  it("a library another process is writing: 'busy', with what to do, as a conflict", async () => {
    // Another connection (the app, an import) holds the write lock; waiting is cut short here.
    api.ctx.db.pragma("busy_timeout = 0");
    // An edit's own wait for another process (dispatch.ts) too: it refuses in the same words.
    api.ctx.writes.otherWriterLimitMs = 0;
    other.exec("BEGIN IMMEDIATE");
    try {
      const result = await api.call("settings:set", { key: "compaction.keepRecentTokens", value: 1000 });
      expect(result).toEqual({
        ok: false,
        error: {
          code: "conflict",
          message: expect.stringMatching(/^The library is busy: another Canopy process/),
        },
      });
      if (!result.ok) {
        expect(result.error.message).not.toMatch(/database is locked/);
        // Shown as "Labelling failed: <message>": its last sentence ends as its first does.
        expect(result.error.message).toMatch(/\. Nothing was changed; try again when it is done\.$/);
      }
    } finally {
      other.exec("ROLLBACK");
    }
    expect((await api.call("settings:set", { key: "compaction.keepRecentTokens", value: 1000 })).ok).toBe(
      true,
    );
  });

  it("a full disk and a read-only library are said so; other SQLite errors keep their first line", () => {
    const sqliteError = (code: string, message: string) => Object.assign(new Error(message), { code });
    expect(toApiError(sqliteError("SQLITE_FULL", "database or disk is full"))).toEqual({
      code: "io_error",
      message: "The library could not be written: the disk is full",
    });
    expect(
      toApiError(sqliteError("SQLITE_READONLY", "attempt to write a readonly database")).message,
    ).toMatch(/read-only/);
    expect(toApiError(sqliteError("SQLITE_CORRUPT", "database disk image is malformed\nmore"))).toEqual({
      code: "internal",
      message: "database disk image is malformed",
    });
  });
});
