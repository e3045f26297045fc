// A hook whose handler returns a promise that never settles, with nothing else left to wait for:
// the CLI process used to end with Node's exit code 13 and its "unsettled top-level await"
// warning pointing into main/cli.ts — no word of the hook. It now says which hook never finished.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { repoRoot } from "../helpers/fixtures.ts";

const dir = mkdtempSync(path.join(os.tmpdir(), "canopy-hook-never-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function canopy(...args: string[]) {
  return spawnSync(
    process.execPath,
    ["--experimental-strip-types", "--no-warnings=ExperimentalWarning", "main/cli.ts", ...args, "--db", path.join(dir, "library.db")],
    { cwd: repoRoot, encoding: "utf8", timeout: 60_000, env: { ...process.env, CANOPY_NO_DEMO: "" } },
  );
}

it("compact with a hook that never settles ends with one line naming the hook", () => {
  const list = canopy("list", "--json");
  expect(list.status).toBe(0);
  const sessions = JSON.parse(list.stdout) as { id: string }[];
  const id = sessions[0]?.id ?? "";
  mkdirSync(path.join(dir, "hooks"), { mode: 0o755 });
  writeFileSync(
    path.join(dir, "hooks", "hang.mjs"),
    'export default (canopy) => { canopy.on("session_before_compact", () => new Promise(() => {})); };\n',
    { mode: 0o644 },
  );
  const run = canopy("compact", id);
  expect(run.status).toBe(1);
  expect(run.stderr).not.toMatch(/unsettled top-level await/);
  expect(run.stderr.trim().split("\n").at(-1)).toBe(
    "canopy: error: the session_before_compact hook hang.mjs never finished (its handler returned a promise that nothing settles); nothing was saved",
  );
  expect(canopy("show", id).stdout).not.toContain("hang.mjs");
});
