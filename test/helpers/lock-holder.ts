/**
 * Another process holding a library's write lock (BEGIN IMMEDIATE on its own connection), as a
 * CLI import or a second Canopy app does: for tests of what Canopy does meanwhile. Held until
 * released, or for a given time; `stop` kills the process (after each test).
 */
import { spawn } from "node:child_process";
import { createRequire } from "node:module";

const betterSqlite = createRequire(import.meta.url).resolve("better-sqlite3");

export interface LockHolder {
  /** Commits and ends the holder (the lock is free once it has). */
  release(): void;
  /** Kills the holder, whatever it is doing. */
  stop(): void;
}

/** Resolves once the other process holds the lock on `dbPath`: until release(), or `forMs` ms. */
export function holdLockElsewhere(dbPath: string, options: { forMs?: number } = {}): Promise<LockHolder> {
  const end = `db.exec("COMMIT"); db.close(); process.exit(0);`;
  const until =
    options.forMs === undefined
      ? `process.stdin.on("data", () => { ${end} });`
      : `setTimeout(() => { ${end} }, ${options.forMs});`;
  const script = `const Database = require(${JSON.stringify(betterSqlite)});
const db = new Database(${JSON.stringify(dbPath)});
db.exec("BEGIN IMMEDIATE");
process.stdout.write("held\\n");
${until}`;
  const child = spawn(process.execPath, ["-e", script], { stdio: ["pipe", "pipe", "inherit"] });
  const holder: LockHolder = {
    release: () => child.stdin?.write("go\n"),
    stop: () => child.kill(),
  };
  return new Promise((resolve, reject) => {
    child.stdout?.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes("held")) resolve(holder);
    });
    child.on("exit", (code) => reject(new Error(`the lock holder exited (${code})`)));
  });
}
