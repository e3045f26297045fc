// The agent session folders from the CLI: `folders` shows them (the pi and oh-my-pi defaults
// until set), `folders set` / `folders reset` change them, `import --agent-folders` imports them;
// and `npm run canopy` reads relative paths from where the command was typed.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { defaultAgentFolders } from "../../main/library/files.ts";
import { runCliCaptured } from "../helpers/cli.ts";
import { fixturePath, repoRoot } from "../helpers/fixtures.ts";

let dir: string;
let db: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "canopy-folders-"));
  db = path.join(dir, "library.db");
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const cli = (...args: string[]) => runCliCaptured([...args, "--db", db]);

describe("canopy folders", () => {
  it("shows the defaults, sets folders (marking missing ones), imports them, and resets", async () => {
    const shown = await cli("folders", "--json");
    const defaults = defaultAgentFolders();
    const missingDefaults = defaults.filter((folder) => !fs.existsSync(folder));
    expect(JSON.parse(shown.out)).toEqual({ folders: defaults, defaults: true, missing: missingDefaults });

    const agent = path.join(dir, "agent");
    fs.mkdirSync(path.join(agent, "project"), { recursive: true });
    fs.copyFileSync(fixturePath("tree-00.jsonl"), path.join(agent, "project", "s.jsonl"));
    const missing = path.join(dir, "missing");
    const set = await cli("folders", "set", agent, missing);
    expect(set.code).toBe(0);
    expect(set.out).toBe(
      [
        "Agent session folders (set; `canopy folders reset` goes back to the defaults):",
        `  ${agent}`,
        `  ${missing}  (not there)`,
        "",
      ].join("\n"),
    );

    const imported = await cli("import", "--agent-folders", "--json");
    expect(imported.code).toBe(0);
    expect(JSON.parse(imported.out)).toMatchObject({ imported: 1, failed: 0 });

    const reset = await cli("folders", "reset", "--json");
    expect(JSON.parse(reset.out)).toEqual({ folders: defaults, defaults: true, missing: missingDefaults });
  });

  it("refuses the whole disk or the home folder (scanned and watched recursively)", async () => {
    for (const broad of ["/", os.homedir()]) {
      const run = await cli("folders", "set", broad);
      expect(run.code).toBe(1);
      expect(run.err).toBe(
        `canopy: error: ${broad} is too broad to scan and watch: give the folder that holds the agent's sessions (such as ${path.join(os.homedir(), ".pi", "agent", "sessions")})\n`,
      );
    }
    expect(JSON.parse((await cli("folders", "--json")).out)).toMatchObject({ defaults: true });
  });

  it("says what is wrong in one line", async () => {
    expect((await cli("folders", "set")).err).toBe(
      "canopy: folders set needs one or more folders (folders reset: the defaults) (see `canopy help`)\n",
    );
    expect((await cli("import")).err).toBe(
      "canopy: missing <file|dir> to import (or --agent-folders) (see `canopy help`)\n",
    );
    expect((await cli("import", "x.jsonl", "--agent-folders")).code).toBe(2);
  });
});

describe("npm run canopy from another folder", () => {
  it("reads a relative path from where the command was typed", () => {
    fs.copyFileSync(fixturePath("tree-00.jsonl"), path.join(dir, "here.jsonl"));
    const run = spawnSync(
      "npm",
      ["--prefix", repoRoot, "run", "--silent", "canopy", "--", "import", "here.jsonl", "--db", "library.db"],
      { cwd: dir, encoding: "utf8", env: { ...process.env, CANOPY_NO_DEMO: "1" } },
    );
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    expect(run.stdout).toContain(
      `imported  01a2361e-31af-75a7-95c2-9bc5d25359f5 ${path.join(dir, "here.jsonl")}`,
    );
    expect(fs.existsSync(db)).toBe(true);
  });
});
