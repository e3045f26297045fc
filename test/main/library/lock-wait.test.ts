// untilWriteLockFree while this process's import runner holds the write gate: it goes on once the
// gate opens, and leaves no timer behind (a pause left running until the limit — minutes for a
// job's save — kept a CLI process alive after its work was done). Its timers are counted with
// vitest's fake timers: the process's active timers also count the test runner's own (an RPC
// call's timeout), which come and go on a loaded machine ("expected +0 to be 1").
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
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
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
});
afterEach(() => {
  vi.useRealTimers();
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("untilWriteLockFree behind the write gate", () => {
  it("goes on when the gate opens and clears its pause's timer", async () => {
    let open = (): void => {};
    void gate.hold(new Promise<void>((resolve) => (open = resolve)));
    const waiting = untilWriteLockFree(db, gate, 5 * 60_000);
    // Its pause until the limit runs while the gate is held.
    expect(vi.getTimerCount()).toBe(1);
    open();
    expect(await waiting).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("ends at once, false, when its signal aborts while the gate is held", async () => {
    let open = (): void => {};
    void gate.hold(new Promise<void>((resolve) => (open = resolve)));
    const aborting = new AbortController();
    const waiting = untilWriteLockFree(db, gate, 5 * 60_000, aborting.signal);
    expect(vi.getTimerCount()).toBe(1);
    aborting.abort();
    expect(await waiting).toBe(false);
    open();
    expect(vi.getTimerCount()).toBe(0);
  });
});
