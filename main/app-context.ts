/**
 * Builds the application context every transport shares: the SQLite library (seeded with the
 * bundled demo sessions on first open), the prompt templates in effect, and the event bus.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadPromptTemplates } from "../prompts/index.ts";
import { ConnectionTests } from "./api/connection-tests.ts";
import { EventBus } from "./api/events.ts";
import type { AppContext } from "./api/types.ts";
import { loadHookModules } from "./hooks/loader.ts";
import { HookRegistry } from "./hooks/registry.ts";
import { seedDemoSessions } from "./library/demo.ts";
import { InPlaceImports, ThreadImports } from "./library/import-runner.ts";
import { SearchIndexer } from "./library/search-indexer.ts";
import { WriteGate } from "./library/write-gate.ts";
import { JobRegistry } from "./pipelines/jobs.ts";
import { createEnvSecretStore, type SecretStore } from "./secrets.ts";
import { resolveLibraryPath } from "./store/library-file.ts";
import { libraryIdentity } from "./store/library-identity.ts";
import { defaultDatabasePath, openDatabase } from "./store/open.ts";

/** The folder holding prompts/ and main/demo/ (the repository, or the packaged app). */
export const defaultAppDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

export interface AppContextOptions {
  /** Database file; default `CANOPY_DB` or the user's data folder. */
  dbPath?: string | undefined;
  appDir?: string;
  /** Seed the bundled demo sessions into an empty, never-seeded library (default: unless CANOPY_NO_DEMO=1). */
  seedDemo?: boolean;
  /** Load user hook modules from `<data folder>/hooks` (default true). */
  loadUserHooks?: boolean;
  env?: NodeJS.ProcessEnv;
  /** Where API keys come from (default: the environment, as in browser mode and the CLI). */
  secrets?: SecretStore;
  /**
   * Run imports on a thread of their own (default false): the app's process keeps answering the
   * window meanwhile, and each file's progress reaches it as the import goes.
   */
  importThread?: boolean;
  /**
   * Index imported entries for search in the background, in short slices when requests are
   * quiet (default false: a search indexes what waits first, as the CLI wants).
   */
  backgroundSearchIndex?: boolean;
  /** The desktop app's save dialog (see AppContext.saveDialog); default none. */
  saveDialog?: AppContext["saveDialog"];
}

export function createAppContext(options: AppContextOptions = {}): AppContext {
  const appDir = options.appDir ?? defaultAppDir;
  const dbPath = resolveLibraryPath(options.dbPath ?? defaultDatabasePath());
  const dataDir = path.dirname(dbPath);
  // Creates the data folder, or says clearly why the path cannot hold a library.
  const db = openDatabase(dbPath);
  const seedDemo = options.seedDemo ?? process.env.CANOPY_NO_DEMO !== "1";
  if (seedDemo) seedDemoSessions(db, path.join(appDir, "main", "demo"));
  const prompts = loadPromptTemplates({
    defaultsDir: path.join(appDir, "prompts"),
    overrideDir: path.join(dataDir, "prompts"),
  });
  const hooks = new HookRegistry();
  const hooksReady =
    options.loadUserHooks === false
      ? Promise.resolve()
      : loadHookModules(hooks, path.join(dataDir, "hooks")).then(() => undefined);
  const writes = new WriteGate();
  const imports =
    options.importThread === true ? new ThreadImports(db, dbPath, { writes }) : new InPlaceImports(db);
  const events = new EventBus();
  const searchIndexer = options.backgroundSearchIndex === true ? new SearchIndexer(db, imports) : null;
  if (searchIndexer !== null) {
    // Imports, the watcher's re-imports and Canopy's own entries all end in one of these events.
    events.subscribe((name) => {
      if (name === "library:changed" || name === "session:changed") searchIndexer.kick();
    });
    // What an earlier run or the CLI left unindexed (and the demo sessions just seeded).
    searchIndexer.kick();
  }
  return {
    db,
    dbPath,
    libraryFile: libraryIdentity(dbPath),
    dataDir,
    prompts,
    events,
    hooks,
    hooksReady,
    jobs: new JobRegistry(),
    imports,
    writes,
    connectionTests: new ConnectionTests(),
    searchIndexer,
    env: options.env ?? process.env,
    secrets: options.secrets ?? createEnvSecretStore(options.env ?? process.env),
    saveDialog: options.saveDialog ?? null,
  };
}
