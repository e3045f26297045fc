// Agent folder changes made by another program (main/library/outside-changes.ts): the real CLI's
// `folders set` / `folders reset`, run as a process of its own on the serving process's library,
// are announced as `library:folders-changed` with the folders now in effect, and the live
// watcher then watches the new folders (a session the agent starts there is imported); this
// process's own library:set-folders is announced once, by its handler, never again by the poll.
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Events } from "../../../core/api/contract.ts";
import { type Api, createApi } from "../../../main/api/dispatch.ts";
import type { AppContext } from "../../../main/api/types.ts";
import { createAppContext } from "../../../main/app-context.ts";
import { importPath } from "../../../main/library/import.ts";
import { listSessions } from "../../../main/library/load.ts";
import { type OutsideChanges, watchOutsideChanges } from "../../../main/library/outside-changes.ts";
import { type LibraryWatcher, startLibraryWatcher } from "../../../main/library/watch.ts";
import { cliOn, quietFor, waitHeard } from "../../helpers/outside-writer.ts";
import { makeTempDir } from "../store/helpers.ts";

const POLL_MS = 100;

let tmp: ReturnType<typeof makeTempDir>;
let dbPath: string;
let ctx: AppContext;
let api: Api;
let outside: OutsideChanges;
let watcher: LibraryWatcher | null;
let heard: Events["library:folders-changed"][];
let settingsHeard: number;

beforeEach(() => {
  tmp = makeTempDir();
  dbPath = path.join(tmp.dir, "library.db");
  ctx = createAppContext({ dbPath, seedDemo: false, loadUserHooks: false });
  api = createApi(ctx);
  heard = [];
  settingsHeard = 0;
  watcher = null;
  ctx.events.subscribe((name, payload) => {
    if (name === "library:folders-changed") heard.push(payload as Events["library:folders-changed"]);
    if (name === "settings:changed") settingsHeard += 1;
  });
  outside = watchOutsideChanges(ctx, { intervalMs: POLL_MS });
});

afterEach(async () => {
  watcher?.close();
  outside.close();
  await ctx.imports.close();
  ctx.db.close();
  tmp.cleanup();
});

const cli = (...args: string[]) => cliOn(dbPath, ...args);
const waitFor = (what: string, test: () => boolean, ms?: number) => waitHeard(what, test, heard, ms);

/** A one-message session file with header id `id` in `folder`. */
function sessionIn(folder: string, id: string): string {
  fs.mkdirSync(folder, { recursive: true });
  const file = path.join(folder, `${id}.jsonl`);
  const timestamp = "2026-03-01T10:00:00.000Z";
  const lines = [
    { type: "session", version: 3, id, timestamp, cwd: "/tmp/p" },
    {
      type: "message",
      id: `${id}-u1`,
      parentId: null,
      timestamp,
      message: { role: "user", content: [{ type: "text", text: "hello" }], timestamp: Date.parse(timestamp) },
    },
  ];
  fs.writeFileSync(file, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
  return file;
}

describe("agent folders set by another program", () => {
  it("announces the CLI's folders set and reset with the folders in effect, once each", async () => {
    const agents = path.join(tmp.dir, "agents");
    fs.mkdirSync(agents);
    await cli("folders", "set", agents);
    await waitFor("library:folders-changed after the CLI's folders set", () => heard.length > 0);
    expect(heard[0]).toEqual({ folders: [agents], defaults: false, missing: [] });
    await cli("folders", "reset");
    await waitFor("library:folders-changed after the CLI's folders reset", () => heard.length > 1);
    expect(heard[1]?.defaults).toBe(true);
    await quietFor(6 * POLL_MS);
    expect(heard).toHaveLength(2);
  }, 30_000);

  it("announces this process's own set once, by library:set-folders, never again by the poll", async () => {
    const result = await api.call("library:set-folders", { folders: [tmp.dir] });
    expect(result.ok).toBe(true);
    expect(heard.map((event) => event.folders)).toEqual([[tmp.dir]]);
    // The poll looks again only once another program writes: then too, the folders are not news.
    await cli("settings", "set", "retry.maxRetries", "5");
    await waitFor("settings:changed after the CLI's settings set", () => settingsHeard > 0);
    await quietFor(6 * POLL_MS);
    expect(heard).toHaveLength(1);
  }, 30_000);

  it("refuses a save naming the folders its window showed when the CLI changed them since", async () => {
    const defaults = await api.call("library:get-folders", {});
    if (!defaults.ok) throw new Error(defaults.error.message);
    const cliSet = path.join(tmp.dir, "from-cli");
    await cli("folders", "set", cliSet);
    const stale = await api.call("library:set-folders", {
      folders: [path.join(tmp.dir, "mine")],
      expected: defaults.value.folders,
    });
    expect(stale.ok).toBe(false);
    if (stale.ok) return;
    expect(stale.error.code).toBe("conflict");
    expect(stale.error.message).toBe(
      `The agent folders were changed elsewhere (they are now ${cliSet}): yours were not saved, so as not to overwrite that change`,
    );
    const now = await api.call("library:get-folders", {});
    expect(now.ok && now.value.folders).toEqual([cliSet]);
    // Naming what is in effect now, the save goes through.
    const knowing = await api.call("library:set-folders", {
      folders: [path.join(tmp.dir, "mine")],
      expected: [cliSet],
    });
    expect(knowing.ok && knowing.value.folders).toEqual([path.join(tmp.dir, "mine")]);
  }, 30_000);

  it("has the live watcher watch the folders the CLI set: a session started there is imported", async () => {
    fs.mkdirSync(path.join(tmp.dir, "agents"));
    // Source paths are stored as real paths: so are the watched folders.
    const agents = fs.realpathSync(path.join(tmp.dir, "agents"));
    importPath(ctx.db, sessionIn(path.join(agents, "project-a"), "first"));
    watcher = startLibraryWatcher(ctx, { debounceMs: 50 });
    // Outside the (default) agent folders: only the known file's own folder is watched.
    expect(watcher.watched()).toEqual([path.join(agents, "project-a")]);

    await cli("folders", "set", agents);
    await waitFor("library:folders-changed after the CLI's folders set", () => heard.length > 0);
    expect(watcher.watched()).toEqual([path.join(agents, "**")]);
    sessionIn(path.join(agents, "project-b"), "second");
    await waitFor(
      "the new session in the folder the CLI set imported",
      () => listSessions(ctx.db).some((session) => session.id === "second"),
      5000,
    );
  }, 30_000);
});
