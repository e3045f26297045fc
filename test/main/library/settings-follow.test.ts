// Settings changes other programs make (main/library/outside-changes.ts + migration 6): the real
// CLI's `settings set`, run as a process of its own on the serving process's library, and a
// plain SQLite connection of any program, are announced as `settings:changed` with the new
// settings; this process's own settings:set is announced once, by its handler, never again by
// the poll; folder changes (another row of the settings table) and a set to the same value are
// not. A set that names the value its window showed (`expected`) is refused when the key holds
// another by now, so a stale window never overwrites a change made elsewhere.
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Events } from "../../../core/api/contract.ts";
import { DEFAULT_SETTINGS } from "../../../core/settings/schema.ts";
import { type Api, createApi } from "../../../main/api/dispatch.ts";
import type { AppContext } from "../../../main/api/types.ts";
import { createAppContext } from "../../../main/app-context.ts";
import { type OutsideChanges, watchOutsideChanges } from "../../../main/library/outside-changes.ts";
import { loadSettings } from "../../../main/settings/store.ts";
import { cliOn, quietFor, waitHeard } from "../../helpers/outside-writer.ts";
import { makeTempDir } from "../store/helpers.ts";

const POLL_MS = 100;

let tmp: ReturnType<typeof makeTempDir>;
let dbPath: string;
let ctx: AppContext;
let api: Api;
let outside: OutsideChanges;
let heard: Events["settings:changed"][];

beforeEach(() => {
  tmp = makeTempDir();
  dbPath = path.join(tmp.dir, "library.db");
  ctx = createAppContext({ dbPath, seedDemo: false, loadUserHooks: false });
  api = createApi(ctx);
  heard = [];
  ctx.events.subscribe((name, payload) => {
    if (name === "settings:changed") heard.push(payload as Events["settings:changed"]);
  });
  outside = watchOutsideChanges(ctx, { intervalMs: POLL_MS });
});

afterEach(async () => {
  outside.close();
  await ctx.imports.close();
  ctx.db.close();
  tmp.cleanup();
});

/** The real CLI in a process of its own, on the same library. */
const cli = (...args: string[]) => cliOn(dbPath, ...args);

const waitFor = (what: string, test: () => boolean, ms?: number) => waitHeard(what, test, heard, ms);

/** Several polls' time, for what must not happen. */
const quiet = (ms = 6 * POLL_MS) => quietFor(ms);

async function set(key: string, value: unknown, expected?: { value: unknown }) {
  return api.call("settings:set", { key, value, ...(expected ? { expected: expected.value } : {}) });
}

describe("settings written by another program", () => {
  it("announces the CLI's settings set with the new settings, once", async () => {
    await cli("settings", "set", "compaction.reserveTokens", "9000");
    await waitFor("settings:changed after the CLI's set", () => heard.length > 0);
    expect(heard[0]?.settings.compaction.reserveTokens).toBe(9000);
    await quiet();
    expect(heard).toHaveLength(1);
  }, 30_000);

  it("announces a write by a connection that is not Canopy's (any program)", async () => {
    const other = new BetterSqlite3(dbPath);
    try {
      const document = { ...DEFAULT_SETTINGS, images: { blockImages: true } };
      other
        .prepare(
          "INSERT INTO settings (key, value_json, updated_at) VALUES ('canopy.settings', ?, '2026-01-01')",
        )
        .run(JSON.stringify(document));
    } finally {
      other.close();
    }
    await waitFor("settings:changed after the other connection's write", () => heard.length > 0);
    expect(heard.map((event) => event.settings.images.blockImages)).toEqual([true]);
  });
});

describe("this process's own changes", () => {
  it("are announced once, by settings:set, never again by the poll; the same value or a folder change not at all", async () => {
    const result = await set("retry.maxRetries", 7);
    expect(result.ok).toBe(true);
    expect(heard.map((event) => event.settings.retry.maxRetries)).toEqual([7]);
    await quiet();
    expect(heard).toHaveLength(1);

    expect((await set("retry.maxRetries", 7)).ok).toBe(true);
    const folders = await api.call("library:set-folders", { folders: [tmp.dir] });
    expect(folders.ok).toBe(true);
    await cli("folders", "set", path.join(tmp.dir, "elsewhere"));
    await quiet();
    expect(heard).toHaveLength(1);
  }, 30_000);
});

describe("a window that showed an older value", () => {
  it("cannot overwrite what the CLI set since: refused with the value now stored", async () => {
    await cli("settings", "set", "compaction.reserveTokens", "9000");
    // The window still shows the default and its user edits another value in.
    const stale = await set("compaction.reserveTokens", 20000, {
      value: DEFAULT_SETTINGS.compaction.reserveTokens,
    });
    expect(stale.ok).toBe(false);
    if (stale.ok) return;
    expect(stale.error.code).toBe("conflict");
    expect(stale.error.message).toBe(
      "compaction.reserveTokens was changed elsewhere (it is now 9000): yours was not saved, so as not to overwrite that change",
    );
    expect(loadSettings(ctx.db).compaction.reserveTokens).toBe(9000);

    // Knowing the value now stored (the refreshed form), the same change is saved.
    const fresh = await set("compaction.reserveTokens", 20000, { value: 9000 });
    expect(fresh.ok).toBe(true);
    expect(loadSettings(ctx.db).compaction.reserveTokens).toBe(20000);
    // The model set elsewhere stays when this window changes another key.
    await cli(
      "settings",
      "set",
      "model",
      '{"baseUrl":"http://127.0.0.1:1/v1","id":"m1","contextWindow":32768}',
    );
    expect((await set("retry.enabled", false, { value: true })).ok).toBe(true);
    expect(loadSettings(ctx.db).model?.id).toBe("m1");
  }, 30_000);
});
