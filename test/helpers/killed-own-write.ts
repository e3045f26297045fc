/**
 * A child process that saves one of Canopy's own files (the stored keys, the window's state) and
 * is SIGKILLed at the rename that would put the new text in place: it records first, in
 * `<dir>/calls.json`, which file-system calls the save made before (fsync, rename).
 * Usage: node --experimental-strip-types killed-own-write.ts <secrets|window> <dir>
 */
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import path from "node:path";
import { xorSafeStorage } from "./xor-safe-storage.ts";

const [what, dir] = process.argv.slice(2) as [string, string];
const calls: string[] = [];
const realFsync = fs.fsyncSync;
const realWrite = fs.writeFileSync;
fs.fsyncSync = (fd) => {
  calls.push("fsync");
  realFsync(fd);
};
fs.renameSync = (from) => {
  calls.push(`rename ${path.basename(String(from))}`);
  realWrite(path.join(dir, "calls.json"), JSON.stringify(calls));
  process.kill(process.pid, "SIGKILL");
};
syncBuiltinESMExports();

if (what === "secrets") {
  const { createElectronSecretStore } = await import("../../main/secrets.ts");
  const store = await createElectronSecretStore({ safeStorage: xorSafeStorage(), dataDir: dir, env: {}, platform: "linux" });
  await store.set("SECOND_KEY", "sk-second-0123456789");
} else {
  const { writeWindowState, WINDOW_STATE_FILE } = await import("../../main/window-state.ts");
  writeWindowState(path.join(dir, WINDOW_STATE_FILE), { maximized: true, theme: "dark" });
}
