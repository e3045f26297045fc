/**
 * The desktop app's wiring, with the Electron objects passed in (index.ts passes the real ones;
 * tests pass fakes): single instance, guards on every webContents, the library and its API over
 * IPC, keys in safeStorage, the window with its remembered state, the menu, files from the OS.
 */
import path from "node:path";
import type {
  App,
  BrowserWindow,
  Dialog,
  IpcMain,
  Menu,
  NativeTheme,
  SafeStorage,
  Screen,
  Session,
  Shell,
} from "electron";
import type { AppCommand } from "../core/api/dto-app.ts";
import { createApi } from "./api/dispatch.ts";
import { createAppContext } from "./app-context.ts";
import { bindIpc } from "./ipc.ts";
import { watchOutsideChanges } from "./library/outside-changes.ts";
import { startLibraryWatcher } from "./library/watch.ts";
import { buildMenuTemplate, type MenuActions } from "./menu.ts";
import { createFileOpener, type FileOpener, sessionFilesFromArgv } from "./open-files.ts";
import { createSaveDialog } from "./save-dialog.ts";
import { createElectronSecretStore } from "./secrets.ts";
import { guardWebContents, hardenSession, isAppUrl } from "./security.ts";
import { defaultDatabasePath } from "./store/open.ts";
import { createMainWindow, rendererIndexPath } from "./window.ts";
import {
  readWindowState,
  trackWindowState,
  WINDOW_STATE_FILE,
  type WindowState,
  writeWindowState,
} from "./window-state.ts";

export interface DesktopElectron {
  app: App;
  BrowserWindow: typeof BrowserWindow;
  dialog: Dialog;
  ipcMain: IpcMain;
  Menu: typeof Menu;
  nativeTheme: NativeTheme;
  safeStorage: SafeStorage;
  screen: Screen;
  session: { defaultSession: Session };
  shell: Shell;
}

export interface DesktopOptions {
  /** The app folder (holds dist/, prompts/, main/demo/). */
  appDir: string;
  argv: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
}

export function startDesktop(electron: DesktopElectron, options: DesktopOptions): void {
  const { app } = electron;
  const indexPath = rendererIndexPath(options.appDir);
  let opener: FileOpener | null = null;
  const early: string[] = [];
  const openFiles = (paths: readonly string[]) => {
    if (paths.length === 0) return;
    if (opener) opener.open(paths);
    else early.push(...paths);
  };

  app.enableSandbox();
  // macOS sends files opened from Finder (possibly before `ready`).
  app.on("open-file", (event, file) => {
    event.preventDefault();
    openFiles([file]);
  });
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return;
  }
  app.on("second-instance", (_event, argv, workingDirectory) => {
    const [window] = electron.BrowserWindow.getAllWindows();
    if (window) {
      if (window.isMinimized()) window.restore();
      window.focus();
    }
    openFiles(sessionFilesFromArgv(argv, workingDirectory));
  });
  app.on("web-contents-created", (_event, contents) =>
    guardWebContents(contents, {
      appIndexPath: indexPath,
      openExternal: (url) => void electron.shell.openExternal(url),
      openSessionFile: (file) => openFiles([file]),
    }),
  );
  app.on("window-all-closed", () => {
    if (options.platform !== "darwin") app.quit();
  });
  openFiles(sessionFilesFromArgv(options.argv, options.cwd));

  const start = async () => {
    const dbPath = path.resolve(defaultDatabasePath(options.env, options.platform));
    const dataDir = path.dirname(dbPath);
    const secrets = await createElectronSecretStore({
      safeStorage: electron.safeStorage,
      dataDir,
      env: options.env,
    });
    const focused = () =>
      electron.BrowserWindow.getFocusedWindow() ?? electron.BrowserWindow.getAllWindows()[0];
    const ctx = createAppContext({
      dbPath,
      appDir: options.appDir,
      env: options.env,
      secrets,
      importThread: true,
      backgroundSearchIndex: true,
      saveDialog: createSaveDialog(electron.dialog, focused),
    });
    const api = createApi(ctx);
    hardenSession(electron.session.defaultSession);
    const unbind = bindIpc(api, {
      ipcMain: electron.ipcMain,
      targets: () => electron.BrowserWindow.getAllWindows().map((window) => window.webContents),
      isTrustedUrl: (url) => isAppUrl(url, indexPath),
    });
    // Agent files that grow while Canopy is open are re-imported and the window refreshes.
    const watcher = options.env.CANOPY_NO_WATCH === "1" ? null : startLibraryWatcher(ctx);
    // What the CLI or another Canopy writes to this library reaches the window too.
    const outside = watchOutsideChanges(ctx);
    const isDev = !app.isPackaged;
    const stateFile = path.join(dataDir, WINDOW_STATE_FILE);
    const workAreas = () => electron.screen.getAllDisplays().map((display) => display.workArea);
    let state: WindowState = readWindowState(stateFile, workAreas());
    const save = (next: WindowState) => {
      state = next;
      writeWindowState(stateFile, next);
    };
    electron.nativeTheme.themeSource = state.theme;
    const emit = (command: AppCommand) => ctx.events.emit("app:command", command);
    const fileOpener = createFileOpener({
      importPath: (target) => api.call("library:import", { path: target }),
      emit,
    });

    const choose = async (
      properties: ("openFile" | "openDirectory" | "multiSelections")[],
      title: string,
    ) => {
      const window = focused();
      const dialogOptions = {
        title,
        properties,
        filters: [{ name: "Agent sessions", extensions: ["jsonl"] }],
      };
      const result = window
        ? await electron.dialog.showOpenDialog(window, dialogOptions)
        : await electron.dialog.showOpenDialog(dialogOptions);
      if (!result.canceled) openFiles(result.filePaths);
    };
    const actions: MenuActions = {
      importFiles: () => void choose(["openFile", "multiSelections"], "Import session files"),
      importFolder: () => void choose(["openDirectory"], "Import every session below a folder"),
      send: emit,
      setTheme: (theme) => {
        electron.nativeTheme.themeSource = theme;
        save({ ...state, theme });
        emit({ command: "theme", theme });
        setMenu();
      },
      openDataFolder: () => void electron.shell.openPath(dataDir),
    };
    const setMenu = () => {
      const template = buildMenuTemplate(actions, {
        isMac: options.platform === "darwin",
        isDev,
        theme: state.theme,
      });
      electron.Menu.setApplicationMenu(electron.Menu.buildFromTemplate(template));
    };
    setMenu();

    const openWindow = () => {
      const window = createMainWindow(electron.BrowserWindow, options.appDir, state, isDev);
      trackWindowState(window, save, () => state);
      // The page listens to app:command once it has loaded: files waiting to be opened go now.
      window.webContents.on("did-finish-load", () => fileOpener.ready());
      return window;
    };
    openWindow();
    opener = fileOpener;
    fileOpener.open(early.splice(0));
    app.on("activate", () => {
      if (electron.BrowserWindow.getAllWindows().length === 0) openWindow();
    });
    // Quitting waits for the import thread to end (it stores the file it is at, then closes
    // its connection): a thread stopped in the middle of an SQLite call can crash the process.
    let quitting: "no" | "closing" | "closed" = "no";
    app.on("will-quit", (event: { preventDefault(): void }) => {
      if (quitting === "closed") return;
      event.preventDefault();
      if (quitting === "closing") return;
      quitting = "closing";
      outside.close();
      watcher?.close();
      unbind();
      ctx.searchIndexer?.close();
      void ctx.imports.close().finally(() => {
        ctx.db.close();
        quitting = "closed";
        app.quit();
      });
    });
  };

  void app
    .whenReady()
    .then(start)
    .catch((error: unknown) => {
      // For example a library written by a newer Canopy: say so instead of a blank window.
      electron.dialog.showErrorBox(
        "Canopy could not start",
        error instanceof Error ? error.message : String(error),
      );
      app.exit(1);
    });
}
