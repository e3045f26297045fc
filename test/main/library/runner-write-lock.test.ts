// The import runner's thread closes the serving thread's write gate while it holds the write lock
// (runner-write-lock.ts). A thread that ends in the middle of its transaction (a crash, or
// terminated while the app closes) says nothing more: the gate must open with its end, or every
// later write would wait for ever.
import { fileURLToPath } from "node:url";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ThreadImports } from "../../../main/library/import-runner.ts";
import { WriteGate } from "../../../main/library/write-gate.ts";
import { type Library, makeLibrary } from "./helpers.ts";

const LOCK_AND_EXIT = fileURLToPath(new URL("../../helpers/lock-and-exit-runner.ts", import.meta.url));

let lib: Library;
let runner: ThreadImports | null = null;
beforeEach(() => {
  lib = makeLibrary();
});
afterEach(async () => {
  await runner?.close();
  lib.cleanup();
});

describe("a runner thread that ends while it holds the write lock", () => {
  it("fails its import with one line, and the write gate it closed opens", async () => {
    const writes = new WriteGate();
    const closed: boolean[] = [];
    runner = new ThreadImports(lib.db, lib.dbFile, { script: LOCK_AND_EXIT, writes });
    // A target whose size cannot be told goes to the thread.
    const failure = runner.run(path.join(lib.dir, "no-such-folder")).then(
      () => "imported",
      (error: Error) => error.message,
    );
    const watching = setInterval(() => closed.push(!writes.open), 1);
    try {
      expect(await failure).toBe("The import stopped: the import thread exited (code 3)");
    } finally {
      clearInterval(watching);
    }
    expect(closed).toContain(true);
    expect(writes.open).toBe(true);
    let passed = false;
    await Promise.race([
      writes.passed().then(() => {
        passed = true;
      }),
      new Promise((resolve) => setTimeout(resolve, 1000)),
    ]);
    expect(passed).toBe(true);
  });

  it("closed while the thread writes (the app quits): the gate opens once the thread has ended, not before", async () => {
    const writes = new WriteGate();
    runner = new ThreadImports(lib.db, lib.dbFile, { script: LOCK_AND_EXIT, writes });
    const failure = runner.run(path.join(lib.dir, "no-such-folder")).catch((error: Error) => error.message);
    const giveUp = Date.now() + 10_000;
    while (writes.open) {
      if (Date.now() > giveUp) throw new Error("the thread never asked for the lock");
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    const closing = runner.close();
    // The thread still holds the lock (for 100 ms): a write here would wait for it on this thread.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(writes.open).toBe(false);
    await closing;
    expect(await failure).toBe("The import stopped: Canopy is closing");
    expect(writes.open).toBe(true);
  });
});
