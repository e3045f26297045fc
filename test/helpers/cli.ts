/**
 * The CLI run in-process with its output recorded: `runCliCaptured` for one command (text as
 * printed, a newline per line), `cliRecorder` for several commands on one database (lines).
 */
import { runCli } from "../../main/cli.ts";

export interface CliRun {
  code: number;
  out: string;
  err: string;
}

export async function runCliCaptured(args: readonly string[]): Promise<CliRun> {
  let out = "";
  let err = "";
  const code = await runCli([...args], {
    out: (text) => {
      out += `${text}\n`;
    },
    write: (chunk) => {
      out += chunk;
    },
    err: (text) => {
      err += `${text}\n`;
    },
    progress: () => {},
    isTerminal: false,
  });
  return { code, out, err };
}

/** Every command gets `--db dbPath`; `out` and `err` collect the lines of all of them. */
export function cliRecorder(dbPath: string): {
  out: string[];
  err: string[];
  run(...args: string[]): Promise<number>;
} {
  const out: string[] = [];
  const err: string[] = [];
  const io = {
    out: (text: string) => out.push(text),
    err: (text: string) => err.push(text),
    progress: () => {},
    isTerminal: false,
  };
  return { out, err, run: (...args) => runCli([...args, "--db", dbPath], io) };
}
