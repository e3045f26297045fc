/**
 * `npm start`: builds the renderer and the Electron bundles, then opens the Electron window.
 * Where the Electron binary is missing (installed with ELECTRON_SKIP_BINARY_DOWNLOAD=1), it says
 * so in one line and starts browser mode instead.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { buildElectron, ensureRendererBuilt, repoRoot } from "./build.ts";
import { serveFromCommandLine, typedInFolder } from "./serve.ts";

/**
 * The Electron executable, or null when it was never downloaded. Looked up the way the electron
 * package does, without requiring it: its index.js would try to download the binary right now.
 */
function electronBinary(): string | null {
  let packageDir: string;
  try {
    packageDir = path.dirname(createRequire(import.meta.url).resolve("electron/package.json"));
  } catch {
    return null;
  }
  const pathFile = path.join(packageDir, "path.txt");
  if (!existsSync(pathFile)) return null;
  const executable = readFileSync(pathFile, "utf8").trim();
  const override = process.env.ELECTRON_OVERRIDE_DIST_PATH;
  const binary = override ? path.join(override, executable) : path.join(packageDir, "dist", executable);
  return existsSync(binary) ? binary : null;
}

try {
  await ensureRendererBuilt();
  const binary = electronBinary();
  if (binary) {
    await buildElectron();
    // In the folder the command was typed in: relative CANOPY_DB and file arguments mean that folder.
    const child = spawn(binary, [repoRoot, ...process.argv.slice(2)], { stdio: "inherit", cwd: typedInFolder() });
    child.on("exit", (code) => process.exit(code ?? 0));
  } else {
    console.log("Electron binary not installed here; starting browser mode instead.");
    await serveFromCommandLine(process.argv.slice(2));
  }
} catch (error) {
  console.error(`canopy: ${(error as Error).message.split("\n")[0]}`);
  process.exit(1);
}
