/**
 * `npm run serve -- --db lib.db` and `CANOPY_DB=lib.db npm start` open the library in the folder
 * the command was typed in (npm runs scripts in the package folder), as `npm run canopy` does.
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { browserModeDbPath } from "../../scripts/serve.ts";

const packageDir = path.resolve("/repo/canopy");
const typedIn = path.resolve("/home/me/work");
const viaNpm = (script: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  INIT_CWD: typedIn,
  npm_lifecycle_event: script,
  ...extra,
});

describe("browser mode's library path", () => {
  it("reads a relative --db from the folder `npm run serve` was typed in, not the package folder", () => {
    expect(browserModeDbPath("lib.db", viaNpm("serve"), packageDir)).toBe(path.join(typedIn, "lib.db"));
  });

  it("reads a relative CANOPY_DB from the folder `npm start` was typed in", () => {
    expect(browserModeDbPath(undefined, viaNpm("start", { CANOPY_DB: "data/lib.db" }), packageDir)).toBe(
      path.join(typedIn, "data", "lib.db"),
    );
  });

  it("prefers --db over CANOPY_DB and keeps absolute, home and in-memory paths as given", () => {
    const env = viaNpm("serve", { CANOPY_DB: "other.db" });
    expect(browserModeDbPath("lib.db", env, packageDir)).toBe(path.join(typedIn, "lib.db"));
    expect(browserModeDbPath(path.join(packageDir, "x.db"), env, packageDir)).toBe(
      path.join(packageDir, "x.db"),
    );
    expect(browserModeDbPath("~/lib.db", env, packageDir)).toBe("~/lib.db");
    expect(browserModeDbPath(":memory:", env, packageDir)).toBe(":memory:");
  });

  it("uses the current folder when not started by npm, and the data folder when nothing is set", () => {
    expect(browserModeDbPath("lib.db", { INIT_CWD: typedIn }, packageDir)).toBe(
      path.join(packageDir, "lib.db"),
    );
    expect(browserModeDbPath(undefined, viaNpm("serve"), packageDir)).toBeUndefined();
    expect(browserModeDbPath(undefined, viaNpm("serve", { CANOPY_DB: "" }), packageDir)).toBeUndefined();
  });
});
