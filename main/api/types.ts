/**
 * What a handler gets (the application context) and the handler-table type that makes a missing
 * or extra handler a compile error.
 */
import type Database from "better-sqlite3";
import type { Channel, RequestInput, RequestOutput } from "../../core/api/contract.ts";
import type { LoadedPrompts } from "../../prompts/index.ts";
import type { HookRegistry } from "../hooks/registry.ts";
import type { ImportRunner } from "../library/import-runner.ts";
import type { SearchIndexer } from "../library/search-indexer.ts";
import type { WriteGate } from "../library/write-gate.ts";
import type { JobRegistry } from "../pipelines/jobs.ts";
import type { SecretStore } from "../secrets.ts";
import type { LibraryIdentity } from "../store/library-identity.ts";
import type { ConnectionTests } from "./connection-tests.ts";
import type { EventBus } from "./events.ts";

export interface AppContext {
  db: Database.Database;
  dbPath: string;
  /** The library file as opened (null in memory): requests stop when it is deleted or replaced. */
  libraryFile: LibraryIdentity | null;
  /** Folder for user overrides and other per-user files (next to the database). */
  dataDir: string;
  prompts: LoadedPrompts;
  events: EventBus;
  hooks: HookRegistry;
  /** Resolves when the user's hook modules (data folder `hooks/`) have been loaded. */
  hooksReady: Promise<void>;
  jobs: JobRegistry;
  /** Where library imports run: a thread of their own in the app, this thread in the CLI. */
  imports: ImportRunner;
  /** Where requests that write wait while the runner's thread holds the write lock (write-gate.ts). */
  writes: WriteGate;
  /**
   * Running connection tests (Settings → Test connection) by the id their window made, so a
   * second request can abort the one it names (and not another window's), even one it overtook.
   */
  connectionTests: ConnectionTests;
  /**
   * Indexes imported entries for search in the background (the app and browser mode): a search
   * then answers at once from what is indexed. Null: a search indexes what waits first (CLI).
   */
  searchIndexer: SearchIndexer | null;
  /** The process environment (tests may pass their own). */
  env: NodeJS.ProcessEnv;
  /** API keys: encrypted by the desktop app, or from the environment (browser mode, CLI). */
  secrets: SecretStore;
  /**
   * The desktop app's save dialog (`session:choose-export-path`): the path the user chose for a
   * file named `suggestedName`, or null when cancelled. Null where there is none (browser mode, CLI).
   */
  saveDialog: ((suggestedName: string) => Promise<string | null>) | null;
}

export type Handler<C extends Channel> = (
  input: RequestInput<C>,
  ctx: AppContext,
) => RequestOutput<C> | Promise<RequestOutput<C>>;

/** Handlers of one area: exactly the channels whose name starts with `<area>:`. */
export type AreaHandlers<A extends string> = {
  [C in Channel as C extends `${A}:${string}` ? C : never]: Handler<C>;
};

export type HandlerTable = { [C in Channel]: Handler<C> };
