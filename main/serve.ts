/**
 * Browser mode as a function: opens the library and serves the renderer and the contract on
 * 127.0.0.1. Used by `npm run serve`, by `npm start` without Electron, and by the browser tests.
 */
import { createAppContext, defaultAppDir } from "./app-context.ts";
import { createApi } from "./api/dispatch.ts";
import { watchOutsideChanges } from "./library/outside-changes.ts";
import { startLibraryWatcher } from "./library/watch.ts";
import { type BrowserServer, startBrowserServer } from "./server/index.ts";

export interface BrowserModeOptions {
  dbPath?: string | undefined;
  port?: number | undefined;
  rendererDir: string;
  token?: string;
  seedDemo?: boolean;
  /** Re-import session files as they grow and tell the page (default: unless CANOPY_NO_WATCH=1). */
  watch?: boolean;
  /** The environment API keys are read from (default: process.env). */
  env?: NodeJS.ProcessEnv;
}

export interface BrowserMode extends BrowserServer {
  stop(): Promise<void>;
}

export async function startBrowserMode(options: BrowserModeOptions): Promise<BrowserMode> {
  const ctx = createAppContext({
    dbPath: options.dbPath,
    appDir: defaultAppDir,
    importThread: true,
    backgroundSearchIndex: true,
    ...(options.seedDemo === undefined ? {} : { seedDemo: options.seedDemo }),
    ...(options.env === undefined ? {} : { env: options.env }),
  });
  const api = createApi(ctx);
  let server: BrowserServer;
  try {
    server = await startBrowserServer({
      api,
      rendererDir: options.rendererDir,
      ...(options.port === undefined ? {} : { port: options.port }),
      ...(options.token === undefined ? {} : { token: options.token }),
    });
  } catch (error) {
    // E.g. the port is taken: nothing is left open behind the message.
    ctx.searchIndexer?.close();
    await ctx.imports.close();
    ctx.db.close();
    throw error;
  }
  const watcher = (options.watch ?? process.env.CANOPY_NO_WATCH !== "1") ? startLibraryWatcher(ctx) : null;
  // What the CLI or another Canopy writes to this library reaches the page too.
  const outside = watchOutsideChanges(ctx);
  return {
    ...server,
    stop: async () => {
      outside.close();
      watcher?.close();
      await server.close();
      ctx.searchIndexer?.close();
      await ctx.imports.close();
      ctx.db.close();
    },
  };
}
