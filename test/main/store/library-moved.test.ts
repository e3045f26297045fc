// A library file deleted or replaced while the app runs: requests are refused in one line that
// says so (instead of saving into a file nobody opens again), and a library put in its place
// keeps its own content when it is opened next.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Api, createApi } from "../../../main/api/dispatch.ts";
import { createAppContext } from "../../../main/app-context.ts";
import { fixturePath } from "../../helpers/fixtures.ts";

let dir: string;
let dbPath: string;
let api: Api;

const open = (file: string) =>
  createApi(createAppContext({ dbPath: file, seedDemo: false, loadUserHooks: false, env: {} }));

async function sessionIds(target: Api): Promise<string[]> {
  const list = await target.call("library:list", {});
  if (!list.ok) throw new Error(list.error.message);
  return list.value.map((s) => s.id).sort();
}

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "canopy-moved-"));
  dbPath = path.join(dir, "library.db");
  api = open(dbPath);
  expect((await api.call("library:import", { path: fixturePath("tree-00.jsonl") })).ok).toBe(true);
});

afterEach(() => {
  if (api.ctx.db.open) api.ctx.db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("library file deleted or replaced while running", () => {
  it("a deleted library refuses edits and imports instead of reporting them saved", async () => {
    const [sessionId] = await sessionIds(api);
    for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(dbPath + suffix, { force: true });

    const rename = await api.call("edits:rename", { sessionId: sessionId as string, title: "lost?" });
    expect(rename).toEqual({
      ok: false,
      error: {
        code: "io_error",
        message: expect.stringMatching(/^The library file .* was deleted or replaced/),
      },
    });
    const imported = await api.call("library:import", { path: fixturePath("tree-01.jsonl") });
    expect(imported.ok).toBe(false);
    expect(fs.existsSync(dbPath)).toBe(false);
  });

  it("a library renamed into its place keeps its own sessions (the old WAL is not applied to it)", async () => {
    const otherPath = path.join(dir, "other.db");
    const other = open(otherPath);
    expect((await other.call("library:import", { path: fixturePath("tree-02.jsonl") })).ok).toBe(true);
    const otherIds = await sessionIds(other);
    other.ctx.db.close();

    // Pages of the first library still in its WAL, then a backup renamed over it.
    expect((await api.call("library:import", { path: fixturePath("tree-01.jsonl") })).ok).toBe(true);
    fs.renameSync(otherPath, dbPath);
    expect((await api.call("library:list", {})).ok).toBe(false);
    api.ctx.db.close();

    const reopened = open(dbPath);
    try {
      expect(await sessionIds(reopened)).toEqual(otherIds);
      expect(reopened.ctx.db.pragma("integrity_check", { simple: true })).toBe("ok");
    } finally {
      reopened.ctx.db.close();
    }
  });
});
