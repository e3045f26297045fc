// Canopy's own files outside the library (secrets.json, window-state.json) when the process dies
// mid-save: a real child process is SIGKILLed at the rename. The old text is whole, the new one
// was flushed to disk before the rename (a power cut cannot leave an empty file in its place),
// and the temp file the killed save left is removed by the next save.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createElectronSecretStore, SECRETS_FILE } from "../../main/secrets.ts";
import { readWindowState, WINDOW_STATE_FILE, writeWindowState } from "../../main/window-state.ts";
import { xorSafeStorage } from "../helpers/xor-safe-storage.ts";

const CHILD = path.join(import.meta.dirname, "../helpers/killed-own-write.ts");
const SCREEN = { x: 0, y: 0, width: 1920, height: 1080 };

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "canopy-own-files-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Runs the child's save of `what` in `dir`; returns the calls it made before it was killed. */
function killedSave(what: "secrets" | "window"): string[] {
  const run = spawnSync(process.execPath, ["--experimental-strip-types", CHILD, what, dir], { encoding: "utf8" });
  expect(run.signal, run.stderr).toBe("SIGKILL");
  return JSON.parse(readFileSync(path.join(dir, "calls.json"), "utf8")) as string[];
}

/** What is in `dir` besides the file and the child's record. */
const leftovers = (file: string) => readdirSync(dir).filter((name) => name !== file && name !== "calls.json");

describe("a save killed at its rename", () => {
  it("keeps every stored key, flushed the new text first, and the next save leaves no temp file", async () => {
    const first = await createElectronSecretStore({ safeStorage: xorSafeStorage(), dataDir: dir, env: {}, platform: "linux" });
    await first.set("FIRST_KEY", "sk-first-0123456789");

    const calls = killedSave("secrets");
    expect(calls.at(-1)).toMatch(/^rename /);
    expect(calls.slice(0, -1)).toContain("fsync");

    const after = await createElectronSecretStore({ safeStorage: xorSafeStorage(), dataDir: dir, env: {}, platform: "linux" });
    expect(after.status(["FIRST_KEY"]).note).toBeNull();
    expect(after.get("FIRST_KEY")).toBe("sk-first-0123456789");
    // The act can simply be done again; nothing of the killed save stays behind.
    await after.set("SECOND_KEY", "sk-second-0123456789");
    expect(leftovers(SECRETS_FILE)).toEqual([]);
    const again = await createElectronSecretStore({ safeStorage: xorSafeStorage(), dataDir: dir, env: {}, platform: "linux" });
    expect([again.get("FIRST_KEY"), again.get("SECOND_KEY")]).toEqual(["sk-first-0123456789", "sk-second-0123456789"]);
  });

  it("keeps the window's state, flushed the new text first, and the next save leaves no temp file", () => {
    const file = path.join(dir, WINDOW_STATE_FILE);
    writeWindowState(file, { maximized: false, theme: "light" });

    const calls = killedSave("window");
    expect(calls.at(-1)).toMatch(/^rename /);
    expect(calls.slice(0, -1)).toContain("fsync");

    expect(readWindowState(file, [SCREEN]).theme).toBe("light");
    writeWindowState(file, { maximized: true, theme: "dark" });
    expect(leftovers(WINDOW_STATE_FILE)).toEqual([]);
    expect(readWindowState(file, [SCREEN])).toMatchObject({ maximized: true, theme: "dark" });
  });
});
