/**
 * A recording stand-in for the `electron` module: the objects main/desktop.ts uses, with just
 * enough behaviour (events, windows, IPC handlers, a reversible "safeStorage"). Tests create one
 * with createFakeElectron(); the named exports make this file loadable *as* `electron` by the
 * bundled main.js (see electron-stub-register.ts), where an autopilot drives one start-up.
 */
import { EventEmitter } from "node:events";
import { writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface FakeElectronOptions {
  /** requestSingleInstanceLock() result (false: another instance runs). */
  lock?: boolean;
  isPackaged?: boolean;
  workAreas?: Rect[];
}

type Handler = (event: { senderFrame: { url: string; parent: unknown } | null }, input: unknown) => unknown;
type Preventable = { preventDefault(): void; defaultPrevented: boolean };

export function preventable(): Preventable {
  const event = {
    defaultPrevented: false,
    preventDefault() {
      event.defaultPrevented = true;
    },
  };
  return event;
}

export function createFakeElectron(options: FakeElectronOptions = {}) {
  const log: string[] = [];
  const windows: FakeWindow[] = [];
  const handlers = new Map<string, Handler>();
  const app = Object.assign(new EventEmitter(), {
    isPackaged: options.isPackaged ?? false,
    enableSandbox: () => void log.push("app.enableSandbox"),
    requestSingleInstanceLock: () => options.lock ?? true,
    quit: () => void log.push("app.quit"),
    exit: (code: number) => void log.push(`app.exit(${code})`),
    whenReady: () => Promise.resolve(),
  });

  class FakeWebContents extends EventEmitter {
    /** Events sent to the page, their JSON text parsed (main sends only text: core/api/wire.ts). */
    sent: { channel: string; payload: unknown }[] = [];
    url = "";
    windowOpenHandler: ((details: { url: string }) => { action: string }) | undefined;
    send(channel: string, text: unknown) {
      if (typeof text !== "string") throw new TypeError(`${channel}: an event must cross IPC as JSON text`);
      this.sent.push({ channel, payload: JSON.parse(text) });
    }
    getURL() {
      return this.url;
    }
    setWindowOpenHandler(handler: (details: { url: string }) => { action: string }) {
      this.windowOpenHandler = handler;
    }
  }

  class FakeWindow extends EventEmitter {
    static getAllWindows() {
      return windows.filter((window) => !window.closed);
    }
    static getFocusedWindow() {
      return FakeWindow.getAllWindows()[0] ?? null;
    }
    options: Record<string, unknown>;
    webContents = new FakeWebContents();
    loadedFile: string | undefined;
    shown = false;
    maximized = false;
    closed = false;
    bounds: Rect;
    constructor(windowOptions: object) {
      super();
      this.options = windowOptions as Record<string, unknown>;
      const { x = 0, y = 0, width = 800, height = 600 } = windowOptions as Partial<Rect>;
      this.bounds = { x, y, width, height };
      windows.push(this);
      app.emit("web-contents-created", {}, this.webContents);
    }
    loadFile(file: string) {
      this.loadedFile = file;
      this.webContents.url = pathToFileURL(file).href;
      return Promise.resolve();
    }
    show() {
      this.shown = true;
    }
    maximize() {
      this.maximized = true;
    }
    isMaximized() {
      return this.maximized;
    }
    isMinimized() {
      return false;
    }
    restore() {}
    focus() {
      log.push("window.focus");
    }
    getNormalBounds() {
      return this.bounds;
    }
  }

  const xor = (bytes: Uint8Array) => Buffer.from(bytes.map((byte) => byte ^ 0x2f));
  type RequestHandler = (contents: unknown, permission: string, callback: (granted: boolean) => void) => void;
  type CheckHandler = (contents: unknown, permission: string) => boolean;
  type HeadersListener = (
    details: { responseHeaders?: Record<string, string | string[]> },
    callback: (response: { responseHeaders?: Record<string, string | string[]> }) => void,
  ) => void;
  const defaultSession: {
    permissionRequest?: RequestHandler | null;
    permissionCheck?: CheckHandler | null;
    headers?: HeadersListener | null;
    setPermissionRequestHandler(handler: RequestHandler | null): void;
    setPermissionCheckHandler(handler: CheckHandler | null): void;
    webRequest: { onHeadersReceived(listener: HeadersListener | null): void };
  } = {
    setPermissionRequestHandler(handler) {
      defaultSession.permissionRequest = handler;
    },
    setPermissionCheckHandler(handler) {
      defaultSession.permissionCheck = handler;
    },
    webRequest: {
      onHeadersReceived(listener) {
        defaultSession.headers = listener;
      },
    },
  };
  const menu = { template: undefined as unknown[] | undefined };
  const dialogResults: { canceled: boolean; filePaths: string[] }[] = [];
  /** What the next save dialogs answer (cancelled when none is left). */
  const saveDialogResults: { canceled: boolean; filePath: string }[] = [];

  return {
    log,
    windows,
    handlers,
    menu,
    dialogResults,
    saveDialogResults,
    app,
    BrowserWindow: FakeWindow,
    ipcMain: {
      handle: (channel: string, handler: Handler) => void handlers.set(channel, handler),
      removeHandler: (channel: string) => void handlers.delete(channel),
    },
    /**
     * A request as the preload sends it (JSON text), from a page at `url` (a subframe when
     * `parent`); the answer's JSON text parsed.
     */
    async invoke(channel: string, input: unknown, url: string, parent: unknown = null) {
      const handler = handlers.get(channel);
      if (!handler) throw new Error(`no handler for ${channel}`);
      const answer = await handler({ senderFrame: { url, parent } }, JSON.stringify(input));
      if (typeof answer !== "string")
        throw new TypeError(`${channel}: the answer must cross IPC as JSON text`);
      return JSON.parse(answer) as unknown;
    },
    Menu: {
      buildFromTemplate: (template: unknown[]) => ({ template }),
      setApplicationMenu: (built: { template: unknown[] }) => {
        menu.template = built.template;
      },
    },
    nativeTheme: { themeSource: "system" },
    safeStorage: {
      isAsyncEncryptionAvailable: async () => true,
      encryptStringAsync: async (text: string) => xor(Buffer.from(text)),
      decryptStringAsync: async (data: Buffer) => ({ result: xor(data).toString(), shouldReEncrypt: false }),
      getSelectedStorageBackend: () => "gnome_libsecret",
    },
    screen: {
      getAllDisplays: () =>
        (options.workAreas ?? [{ x: 0, y: 0, width: 1920, height: 1080 }]).map((workArea) => ({ workArea })),
    },
    session: { defaultSession },
    shell: {
      openExternal: async (url: string) => void log.push(`shell.openExternal ${url}`),
      openPath: async (target: string) => {
        log.push(`shell.openPath ${target}`);
        return "";
      },
    },
    dialog: {
      showOpenDialog: async () => dialogResults.shift() ?? { canceled: true, filePaths: [] },
      showSaveDialog: async (...args: unknown[]) => {
        const options = args.at(-1) as { defaultPath?: string };
        log.push(`dialog.showSaveDialog ${options.defaultPath ?? ""}`);
        return saveDialogResults.shift() ?? { canceled: true, filePath: "" };
      },
      showErrorBox: (title: string, content: string) =>
        void log.push(`dialog.showErrorBox ${title}: ${content}`),
    },
  };
}

export type FakeElectron = ReturnType<typeof createFakeElectron>;

const instance = createFakeElectron();
export const { app, BrowserWindow, ipcMain, Menu, nativeTheme, safeStorage, screen, session, shell, dialog } =
  instance;

/**
 * Autopilot for the bundle smoke test: once the window loads, tell it the page finished loading,
 * wait for the first app:command (or 5 s), write what happened to the report file and quit.
 */
const reportFile = process.env.CANOPY_FAKE_ELECTRON_REPORT;
if (reportFile) {
  const started = Date.now();
  const timer = setInterval(() => {
    const [window] = instance.windows;
    if (!window?.loadedFile) return;
    if (window.webContents.listenerCount("did-finish-load") > 0 && !window.shown) {
      window.webContents.emit("did-finish-load");
      window.emit("ready-to-show");
    }
    const commands = window.webContents.sent.filter((message) => message.channel === "app:command");
    if (commands.length === 0 && Date.now() - started < 5000) return;
    clearInterval(timer);
    const session = instance.session.defaultSession;
    writeFileSync(
      reportFile,
      JSON.stringify({
        log: instance.log,
        windowOptions: window.options,
        loadedFile: window.loadedFile,
        shown: window.shown,
        guarded: typeof window.webContents.windowOpenHandler === "function",
        permissionHandlers:
          typeof session.permissionRequest === "function" && typeof session.permissionCheck === "function",
        channels: [...instance.handlers.keys()],
        sent: window.webContents.sent,
        menu: (instance.menu.template ?? []).map(
          (item) => (item as { label?: string; role?: string }).label ?? (item as { role?: string }).role,
        ),
        themeSource: instance.nativeTheme.themeSource,
      }),
    );
    // desktop.ts holds the quit until its import thread has ended, then quits again.
    const quitting = preventable();
    instance.app.emit("will-quit", quitting);
    const asked = Date.now();
    const exit = setInterval(() => {
      if (quitting.defaultPrevented && !instance.log.includes("app.quit") && Date.now() - asked < 10_000)
        return;
      clearInterval(exit);
      process.exit(0);
    }, 10);
  }, 20);
}
