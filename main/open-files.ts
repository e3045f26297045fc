/**
 * Session files opened from the OS: `.jsonl` paths on the command line (first start, and a second
 * instance's argv), macOS `open-file`, File › Import…, a file dropped on the window. They are
 * imported through `library:import` and the window is told which session to show.
 */
import { statSync } from "node:fs";
import path from "node:path";
import type { AppCommand } from "../core/api/dto-app.ts";
import type { ApiResult, ImportReport } from "../core/api/dto.ts";

/**
 * The session files among command-line arguments (`argv[0]` is the executable; in development
 * the next one is the app folder, which is no .jsonl file). Flags are skipped; paths are resolved
 * against the working directory of the instance that received them.
 */
export function sessionFilesFromArgv(argv: readonly string[], cwd: string): string[] {
  const files: string[] = [];
  for (const arg of argv.slice(1)) {
    if (arg.startsWith("-") || !arg.toLowerCase().endsWith(".jsonl")) continue;
    const file = path.resolve(cwd, arg);
    // A path that does not exist (or cannot be read) is not opened; the others still are.
    const isFile = statSync(file, { throwIfNoEntry: false })?.isFile() ?? false;
    if (isFile && !files.includes(file)) files.push(file);
  }
  return files;
}

export interface FileOpenerDeps {
  importPath(target: string): Promise<ApiResult<ImportReport>>;
  emit(command: AppCommand): void;
}

export interface FileOpener {
  /** Imports the paths (in order) once the window listens; before that they wait. */
  open(paths: readonly string[]): void;
  /** The window has loaded and hears `app:command`: waiting paths are opened. */
  ready(): void;
  /** Resolves when everything asked so far has been imported (tests, shutdown). */
  idle(): Promise<void>;
}

function describeReport(target: string, report: ImportReport): AppCommand {
  const [only] = report.files;
  if (report.files.length === 1 && only?.sessionId && only.status !== "failed") {
    return { command: "open-session", sessionId: only.sessionId };
  }
  if (report.files.length === 1 && only) {
    return {
      command: "notify",
      level: "error",
      message: `Could not open ${target}: ${only.reason ?? only.status}`,
    };
  }
  const parts = [`${report.imported} imported`, `${report.updated} updated`, `${report.unchanged} unchanged`];
  if (report.failed > 0) parts.push(`${report.failed} failed`);
  return {
    command: "notify",
    level: report.failed > 0 ? "error" : "info",
    message: `${target}: ${parts.join(", ")}`,
  };
}

export function createFileOpener(deps: FileOpenerDeps): FileOpener {
  const waiting: string[] = [];
  let listening = false;
  let chain = Promise.resolve();
  const run = (target: string) => {
    chain = chain
      .then(async () => {
        const result = await deps.importPath(target);
        deps.emit(
          result.ok
            ? describeReport(target, result.value)
            : {
                command: "notify",
                level: "error",
                message: `Could not open ${target}: ${result.error.message}`,
              },
        );
      })
      .catch((error: unknown) =>
        deps.emit({
          command: "notify",
          level: "error",
          message: `Could not open ${target}: ${String(error)}`,
        }),
      );
  };
  return {
    open(paths) {
      if (!listening) {
        waiting.push(...paths);
        return;
      }
      for (const target of paths) run(target);
    },
    ready() {
      listening = true;
      for (const target of waiting.splice(0)) run(target);
    },
    idle: () => chain,
  };
}
