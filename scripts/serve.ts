/**
 * `npm run serve [-- [--port N] [--db path]]`: builds the renderer if it changed, then runs
 * browser mode and prints the URL (with its access token).
 */
import path from "node:path";
import { parseArgs } from "node:util";
import { startBrowserMode } from "../main/serve.ts";
import { ensureRendererBuilt, rendererDist } from "./build.ts";

/**
 * The folder the command was typed in: npm runs `npm run serve` and `npm start` in the package
 * folder and passes the typed-in one as INIT_CWD (as for `npm run canopy`, whose relative paths
 * mean that folder too).
 */
export function typedInFolder(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): string {
  const typedIn = env.INIT_CWD;
  const fromNpm = env.npm_lifecycle_event === "serve" || env.npm_lifecycle_event === "start";
  return fromNpm && typedIn && path.isAbsolute(typedIn) ? typedIn : cwd;
}

/** The library to open: --db, else CANOPY_DB (unset: the data folder), relative to the typed-in folder. */
export function browserModeDbPath(
  db: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
  cwd = process.cwd(),
): string | undefined {
  const file = db ?? (env.CANOPY_DB || undefined);
  if (file === undefined || file === ":memory:" || file === "~" || file.startsWith("~/")) return file;
  return path.resolve(typedInFolder(env, cwd), file);
}

export async function serveFromCommandLine(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { port: { type: "string" }, db: { type: "string" } },
    strict: true,
  });
  const port = values.port === undefined ? undefined : Number(values.port);
  if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535)) {
    throw new Error(`--port takes a number from 0 to 65535, not "${values.port}"`);
  }
  await ensureRendererBuilt();
  const mode = await startBrowserMode({ dbPath: browserModeDbPath(values.db), port, rendererDir: rendererDist });
  console.log(`Canopy is running in browser mode: ${mode.url}`);
  console.log("Open that URL in a browser (the token in it is required). Press Ctrl+C to stop.");
  const stop = () => {
    void mode.stop().then(() => process.exit(0));
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

const invokedDirectly = process.argv[1]?.endsWith("serve.ts");
if (invokedDirectly) {
  try {
    await serveFromCommandLine(process.argv.slice(2));
  } catch (error) {
    console.error(`canopy: ${(error as Error).message.split("\n")[0]}`);
    process.exit(1);
  }
}
