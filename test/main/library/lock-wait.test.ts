// untilWriteLockFree while this process's import runner holds the write gate: it goes on once the
// gate opens, and leaves no timer behind (a pause left running until the limit — minutes for a
// job's save — kept a CLI process alive after its work was done).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { untilWriteLockFree } from "../../../main/library/lock-wait.ts";
import { WriteGate } from "../../../main/library/write-gate.ts";
import { type Database, openDatabase } from "../../../main/store/open.ts";

let dir: string;
let db: Database;
let gate: WriteGate;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "canopy-lock-wait-"));
  db = openDatabase(path.join(dir, "library.db"));
  gate = new WriteGate();
});
afterEach(() => {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const timers = (): number => process.getActiveResourcesInfo().filter((kind) => kind === "Timeout").length;

describe("untilWriteLockFree behind the write gate", () => {
  it("goes on when the gate opens and clears its pause's timer", async () => {
    const before = timers();
    let open = (): void => {};
    void gate.hold(new Promise<void>((resolve) => (open = resolve)));
    const waiting = untilWriteLockFree(db, gate, 5 * 60_000);
    setTimeout(() => open(), 20);
    expect(await waiting).toBe(true);
    expect(timers()).toBe(before);
  });

  it("ends at once, false, when its signal aborts while the gate is held", async () => {
    const before = timers();
    let open = (): void => {};
    void gate.hold(new Promise<void>((resolve) => (open = resolve)));
    const aborting = new AbortController();
    const waiting = untilWriteLockFree(db, gate, 5 * 60_000, aborting.signal);
    aborting.abort();
    expect(await waiting).toBe(false);
    open();
    expect(timers()).toBe(before);
  });
});
