/**
 * The renderer build as a process of its own (`node build-renderer.ts <outDir>`), so the test
 * run's build cannot touch the test runner's environment (buildRenderer sets NODE_ENV), and
 * `buildRendererInChild`, which runs it and fails with one line saying why.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const self = fileURLToPath(import.meta.url);
/** The child's line on a failure starts with this, followed by `buildErrorLine`'s. */
const FAILED = "renderer build failed: ";

/** Builds the renderer into `outDir` in a child process; rejects with a one-line error. */
export function buildRendererInChild(outDir: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--experimental-strip-types", "--no-warnings", self, outDir], {
      stdio: ["ignore", "inherit", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on("error", (error) => reject(new Error(`${FAILED}${error.message}`)));
    child.on("close", (code, signal) => {
      const lines = stderr.split("\n");
      const reason = lines.find((line) => line.startsWith(FAILED));
      // Vite's own warnings stay visible; a failure itself is the one line of the error.
      const rest = lines.filter((line) => line !== reason).join("\n");
      if (rest.trim() !== "") process.stderr.write(rest);
      if (code === 0) resolve();
      else
        reject(new Error(reason ?? `${FAILED}the build process ended with ${signal ?? `exit code ${code}`}`));
    });
  });
}

/**
 * A build error as one line: its first error's first line and where, e.g. "[builtin:vite-transform]
 * Unexpected token at renderer/src/routes.ts:31:24" (Vite's message starts "Build failed with 1
 * error:" and draws the code frame over several lines).
 */
export function buildErrorLine(error: unknown): string {
  const errors = (error as { errors?: unknown } | null)?.errors;
  const list = Array.isArray(errors) && errors.length > 0 ? errors : [error];
  const head: unknown = list[0];
  const message =
    typeof (head as { message?: unknown } | null)?.message === "string"
      ? (head as { message: string }).message
      : String(head);
  const lines = message.split("\n").map((line) => line.trim());
  const first =
    lines.find((line) => line !== "" && !/^Build failed with \d+ errors?:$/.test(line)) ?? "unknown error";
  const at = /([\w.@/-]+\.\w+:\d+:\d+)/.exec(message)?.[1];
  const more = list.length > 1 ? ` (and ${list.length - 1} more)` : "";
  return `${first}${at && !first.includes(at) ? ` at ${at}` : ""}${more}`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === self) {
  const outDir = process.argv[2];
  try {
    if (!outDir) throw new Error("no output folder given");
    const { buildRenderer } = await import("../../scripts/build.ts");
    await buildRenderer(outDir);
  } catch (error) {
    console.error(`${FAILED}${buildErrorLine(error)}`);
    process.exitCode = 1;
  }
}
