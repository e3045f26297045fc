/**
 * For tests of what another program writes to a library (outside-changes): the real CLI run as
 * a process of its own on that library, waiting for what a listener heard, and a quiet spell
 * of several polls for what must not happen.
 */
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { repoRoot } from "./fixtures.ts";

const run = promisify(execFile);

/**
 * Runs `canopy <args> --db <dbPath>` in a child process (no demo seeding) and returns its stdout.
 * With Node's compile cache, as `npm run canopy` has it: a start without it compiles every source
 * again (twice the CPU; seconds a call on a loaded machine, in tests that make several).
 */
export async function cliOn(dbPath: string, ...args: string[]): Promise<string> {
  const { stdout } = await run(
    process.execPath,
    [
      "--require",
      path.join(repoRoot, "scripts", "compile-cache.cjs"),
      "--experimental-strip-types",
      path.join(repoRoot, "main", "cli.ts"),
      ...args,
      "--db",
      dbPath,
    ],
    { cwd: repoRoot, env: { ...process.env, CANOPY_NO_DEMO: "1" } },
  );
  return stdout;
}

/** Waits until `test` holds; fails naming `what` and everything `heard` so far. */
export async function waitHeard(what: string, test: () => boolean, heard: unknown, ms = 5000): Promise<void> {
  const until = Date.now() + ms;
  while (!test()) {
    if (Date.now() > until)
      throw new Error(`not heard within ${ms} ms: ${what}; heard ${JSON.stringify(heard)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Waits `ms` (several polls' time), for what must not happen meanwhile. */
export const quietFor = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
