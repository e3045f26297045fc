// The desktop shell without Electron: window options and guards on fake webContents, session
// hardening, IPC sender checks, window-state clamping, files from argv, the menu template, and
// the whole start-up wiring (desktop.ts) driven through a fake `electron`.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { MenuItemConstructorOptions } from "electron";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AppCommand } from "../../core/api/dto-app.ts";
import { createApi } from "../../main/api/dispatch.ts";
import { createAppContext } from "../../main/app-context.ts";
import { type DesktopElectron, startDesktop } from "../../main/desktop.ts";
import { bindIpc, UNTRUSTED_SENDER } from "../../main/ipc.ts";
import { buildMenuTemplate, type MenuActions } from "../../main/menu.ts";
import { createFileOpener, sessionFilesFromArgv } from "../../main/open-files.ts";
import { ALLOWED_PERMISSIONS, guardWebContents, hardenSession, isAppUrl } from "../../main/security.ts";
import { CONTENT_SECURITY_POLICY } from "../../main/server/static.ts";
import { createMainWindow, mainWindowOptions, rendererIndexPath } from "../../main/window.ts";
import {
  clampBounds,
  readWindowState,
  trackWindowState,
  type WindowState,
  writeWindowState,
} from "../../main/window-state.ts";
import { createFakeElectron, type FakeElectron, preventable } from "../helpers/fake-electron.ts";
import { repoRoot } from "../helpers/fixtures.ts";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "canopy-shell-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const appDir = "/opt/canopy";
const indexPath = rendererIndexPath(appDir);
const appUrl = pathToFileURL(indexPath).href;
const screen = { x: 0, y: 0, width: 1920, height: 1080 };

function sessionFile(name = "s.jsonl"): string {
  const file = path.join(dir, name);
  const header = {
    type: "session",
    version: 3,
    id: `id-${name}`,
    timestamp: "2026-01-01T00:00:00.000Z",
    cwd: "/tmp",
  };
  const entry = {
    type: "message",
    id: "a1",
    parentId: null,
    timestamp: "2026-01-01T00:00:01.000Z",
    message: { role: "user", content: "hi", timestamp: 1 },
  };
  writeFileSync(file, `${JSON.stringify(header)}\n${JSON.stringify(entry)}\n`);
  return file;
}

async function until(check: () => boolean, what: string) {
  const end = Date.now() + 5000;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe("the window", () => {
  it("is isolated, sandboxed, without Node, webviews or (in production) DevTools, at the remembered bounds", () => {
    const bounds = { x: 10, y: 20, width: 1000, height: 700 };
    const options = mainWindowOptions(appDir, { bounds, maximized: false, theme: "system" }, false);
    expect(options).toMatchObject({ ...bounds, show: false, minWidth: 900, minHeight: 600 });
    expect(options.webPreferences).toMatchObject({
      preload: path.join(appDir, "dist", "electron", "preload.cjs"),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      devTools: false,
    });
    expect(mainWindowOptions(appDir, { maximized: false, theme: "system" }, true)).toMatchObject({
      width: 1400,
      height: 900,
      webPreferences: { devTools: true },
    });
  });

  it("loads the built renderer and shows (maximized if it was) when ready", () => {
    const fake = createFakeElectron();
    const window = createMainWindow(fake.BrowserWindow, appDir, { maximized: true, theme: "dark" }, false);
    expect(window.loadedFile).toBe(indexPath);
    expect(window.shown).toBe(false);
    window.emit("ready-to-show");
    expect(window).toMatchObject({ shown: true, maximized: true });
  });
});

describe("guards", () => {
  const opened: string[] = [];
  const external: string[] = [];
  const policy = {
    appIndexPath: indexPath,
    openExternal: (url: string) => external.push(url),
    openSessionFile: (file: string) => opened.push(file),
  };
  const fake = createFakeElectron();
  const contents = new fake.BrowserWindow({}).webContents;
  guardWebContents(contents, policy);
  const navigate = (url: string, event = "will-navigate") => {
    const e = preventable();
    contents.emit(event, e, url);
    return e.defaultPrevented;
  };

  it("let only the app's own page load; a dropped .jsonl file is opened instead of shown", () => {
    expect(navigate(`${appUrl}#/session/abc?leaf=x`)).toBe(false);
    expect(navigate("https://example.com/")).toBe(true);
    expect(navigate("http://127.0.0.1:5173/")).toBe(true);
    expect(navigate("file:///etc/passwd")).toBe(true);
    expect(navigate("https://evil.example/", "will-redirect")).toBe(true);
    expect(navigate("file:///home/me/session.JSONL")).toBe(true);
    expect(opened).toEqual([path.resolve("/home/me/session.JSONL")]);
    expect(isAppUrl("javascript:alert(1)", indexPath)).toBe(false);
  });

  it("never open windows (https links go to the browser) and refuse webviews", () => {
    expect(contents.windowOpenHandler?.({ url: "https://docs.example/page" })).toEqual({ action: "deny" });
    expect(contents.windowOpenHandler?.({ url: "file:///etc/passwd" })).toEqual({ action: "deny" });
    expect(contents.windowOpenHandler?.({ url: "javascript:alert(1)" })).toEqual({ action: "deny" });
    expect(external).toEqual(["https://docs.example/page"]);
    const attach = preventable();
    contents.emit("will-attach-webview", attach);
    expect(attach.defaultPrevented).toBe(true);
  });

  it("deny every permission but writing to the clipboard, and add the CSP header", () => {
    const { defaultSession } = fake.session;
    hardenSession(defaultSession);
    const answers: Record<string, boolean> = {};
    for (const permission of [
      "media",
      "geolocation",
      "notifications",
      "clipboard-read",
      "openExternal",
      "clipboard-sanitized-write",
    ]) {
      defaultSession.permissionRequest?.(null, permission, (granted) => {
        answers[permission] = granted;
      });
      expect(defaultSession.permissionCheck?.(null, permission)).toBe(ALLOWED_PERMISSIONS.has(permission));
    }
    expect(
      Object.entries(answers)
        .filter(([, granted]) => granted)
        .map(([name]) => name),
    ).toEqual(["clipboard-sanitized-write"]);
    let headers: unknown;
    defaultSession.headers?.({ responseHeaders: { "X-Other": ["1"] } }, (response) => {
      headers = response.responseHeaders;
    });
    expect(headers).toEqual({ "X-Other": ["1"], "Content-Security-Policy": [CONTENT_SECURITY_POLICY] });
  });
});

describe("IPC", () => {
  it("answers only the app's top-level page and sends events only to it", async () => {
    const fake = createFakeElectron();
    const api = createApi(
      createAppContext({
        dbPath: path.join(dir, "library.db"),
        seedDemo: false,
        loadUserHooks: false,
        env: {},
      }),
    );
    const trusted = new fake.BrowserWindow({});
    await trusted.loadFile(indexPath);
    const other = new fake.BrowserWindow({});
    other.webContents.url = "https://example.com/";
    const unbind = bindIpc(api, {
      ipcMain: fake.ipcMain,
      targets: () => fake.BrowserWindow.getAllWindows().map((w) => w.webContents),
      isTrustedUrl: (url) => isAppUrl(url, indexPath),
    });
    try {
      expect(await fake.invoke("library:list", {}, `${appUrl}#/`)).toEqual({ ok: true, value: [] });
      expect(await fake.invoke("library:list", {}, "https://example.com/")).toEqual(UNTRUSTED_SENDER);
      expect(await fake.invoke("library:list", {}, appUrl, { url: appUrl })).toEqual(UNTRUSTED_SENDER);
      expect(await fake.invoke("chat:send", { sessionId: "x" }, appUrl)).toMatchObject({
        ok: false,
        error: { code: "invalid_input" },
      });
      api.ctx.events.emit("library:changed", { sessionIds: ["s"] });
      expect(trusted.webContents.sent).toEqual([
        { channel: "library:changed", payload: { sessionIds: ["s"] } },
      ]);
      expect(other.webContents.sent).toEqual([]);
    } finally {
      unbind();
      api.ctx.db.close();
    }
    expect(fake.handlers.size).toBe(0);
  });
});

describe("window state", () => {
  const secondScreen = { x: 1920, y: 0, width: 1280, height: 1024 };

  it("clamps bounds to the screens that exist", () => {
    expect(clampBounds({ x: 100, y: 100, width: 1200, height: 800 }, [screen])).toEqual({
      x: 100,
      y: 100,
      width: 1200,
      height: 800,
    });
    expect(clampBounds({ x: 2000, y: 50, width: 1000, height: 700 }, [screen, secondScreen])).toEqual({
      x: 2000,
      y: 50,
      width: 1000,
      height: 700,
    });
    // The second monitor is gone: the window is not restored off-screen.
    expect(clampBounds({ x: 2000, y: 50, width: 1000, height: 700 }, [screen])).toBeUndefined();
    // Larger than the screen → the screen's size; partly off → moved on; too small → the minimum.
    expect(clampBounds({ x: -50, y: -20, width: 3000, height: 2000 }, [screen])).toEqual({
      x: 0,
      y: 0,
      width: 1920,
      height: 1080,
    });
    expect(clampBounds({ x: 1500, y: 900, width: 1000, height: 700 }, [screen])).toEqual({
      x: 920,
      y: 380,
      width: 1000,
      height: 700,
    });
    expect(clampBounds({ x: 10, y: 10, width: 200, height: 100 }, [screen])).toEqual({
      x: 10,
      y: 10,
      width: 900,
      height: 600,
    });
  });

  it("reads a validated file (defaults for a damaged one) and writes it back", () => {
    const file = path.join(dir, "window-state.json");
    expect(readWindowState(file, [screen])).toEqual({ maximized: false, theme: "system" });
    writeFileSync(file, "{ broken");
    expect(readWindowState(file, [screen])).toEqual({ maximized: false, theme: "system" });
    writeFileSync(file, JSON.stringify({ bounds: { x: "1", y: 0, width: 10, height: 10 }, theme: "dark" }));
    expect(readWindowState(file, [screen])).toEqual({ maximized: false, theme: "system" });
    writeWindowState(file, {
      bounds: { x: 3000, y: 0, width: 1000, height: 800 },
      maximized: true,
      theme: "dark",
    });
    expect(readWindowState(file, [screen])).toEqual({ maximized: true, theme: "dark" });
    expect(readWindowState(file, [screen, secondScreen])).toMatchObject({
      bounds: { x: 2200, y: 0, width: 1000, height: 800 },
    });
  });

  it("saves after moves settle and at once on close", async () => {
    const fake = createFakeElectron();
    const window = new fake.BrowserWindow({ x: 1, y: 2, width: 1000, height: 700 });
    const saved: WindowState[] = [];
    trackWindowState(
      window,
      (state) => saved.push(state),
      () => ({ maximized: false, theme: "light" }),
      20,
    );
    window.emit("move");
    window.emit("resize");
    expect(saved).toHaveLength(0);
    await until(() => saved.length === 1, "the debounced save");
    window.maximized = true;
    window.emit("close");
    expect(saved[1]).toEqual({
      bounds: { x: 1, y: 2, width: 1000, height: 700 },
      maximized: true,
      theme: "light",
    });
  });
});

describe("files from the OS", () => {
  it("takes existing .jsonl paths from argv, after the executable, relative to the instance's folder", () => {
    const a = sessionFile("a.jsonl");
    const b = sessionFile("B.JSONL");
    const argv = ["/usr/bin/canopy", "/opt/app", "--inspect", "a.jsonl", b, "missing.jsonl", "notes.txt", a];
    expect(sessionFilesFromArgv(argv, dir)).toEqual([a, b]);
    expect(sessionFilesFromArgv([a], dir)).toEqual([]);
  });

  it("imports once the window listens and tells it which session to show", async () => {
    const api = createApi(
      createAppContext({
        dbPath: path.join(dir, "library.db"),
        seedDemo: false,
        loadUserHooks: false,
        env: {},
      }),
    );
    const commands: AppCommand[] = [];
    const opener = createFileOpener({
      importPath: (target) => api.call("library:import", { path: target }),
      emit: (c) => commands.push(c),
    });
    try {
      opener.open([sessionFile(), path.join(dir, "gone.jsonl")]);
      await opener.idle();
      expect(commands).toEqual([]);
      opener.ready();
      await opener.idle();
      expect(commands).toEqual([
        { command: "open-session", sessionId: "id-s.jsonl" },
        {
          command: "notify",
          level: "error",
          message: expect.stringMatching(/^Could not open .*gone\.jsonl: No such file/),
        },
      ]);
    } finally {
      api.ctx.db.close();
    }
  });
});

describe("the menu", () => {
  const flatten = (items: MenuItemConstructorOptions[]): MenuItemConstructorOptions[] =>
    items.flatMap((item) => [item, ...(Array.isArray(item.submenu) ? flatten(item.submenu) : [])]);
  const record = () => {
    const calls: string[] = [];
    const actions: MenuActions = {
      importFiles: () => calls.push("importFiles"),
      importFolder: () => calls.push("importFolder"),
      send: (command) => calls.push(`send ${JSON.stringify(command)}`),
      setTheme: (theme) => calls.push(`theme ${theme}`),
      openDataFolder: () => calls.push("openDataFolder"),
    };
    return { calls, actions };
  };
  const click = (item: MenuItemConstructorOptions | undefined) =>
    (item?.click as (() => void) | undefined)?.();

  it("has the main actions with their shortcuts, which send the commands", () => {
    const { calls, actions } = record();
    const items = flatten(buildMenuTemplate(actions, { isMac: false, isDev: false, theme: "system" }));
    const byId = (id: string) => items.find((item) => item.id === id);
    expect(byId("import-files")?.accelerator).toBe("CmdOrCtrl+O");
    expect(byId("import-folder")?.accelerator).toBe("CmdOrCtrl+Shift+O");
    expect(byId("export")?.accelerator).toBe("CmdOrCtrl+E");
    expect(byId("compact")?.accelerator).toBe("CmdOrCtrl+Shift+K");
    expect(byId("prune")?.accelerator).toBe("CmdOrCtrl+Shift+P");
    expect(byId("go-to-leaf")?.accelerator).toBe("CmdOrCtrl+L");
    expect(items.find((item) => item.role === "reload")?.accelerator).toBe("CmdOrCtrl+R");
    expect(items.some((item) => item.role === "toggleDevTools")).toBe(false);
    expect(byId("theme-system")).toMatchObject({ type: "radio", checked: true });
    for (const id of [
      "import-files",
      "import-folder",
      "export",
      "compact",
      "prune",
      "go-to-leaf",
      "theme-dark",
      "shortcuts",
      "data-folder",
    ])
      click(byId(id));
    expect(calls).toEqual([
      "importFiles",
      "importFolder",
      'send {"command":"export"}',
      'send {"command":"compact"}',
      'send {"command":"prune"}',
      'send {"command":"go-to-leaf"}',
      "theme dark",
      'send {"command":"shortcuts"}',
      "openDataFolder",
    ]);
  });

  it("has DevTools only in development, and the app menu on macOS", () => {
    const { actions } = record();
    const dev = flatten(buildMenuTemplate(actions, { isMac: true, isDev: true, theme: "dark" }));
    expect(dev.some((item) => item.role === "toggleDevTools")).toBe(true);
    expect(dev[0]?.label).toBe("Canopy");
    expect(dev.find((item) => item.id === "theme-dark")?.checked).toBe(true);
  });
});

describe("start-up wiring (desktop.ts with a fake electron)", () => {
  // The repository is the app folder here (prompts/ and main/demo/ are read from it).
  const appUrl = pathToFileURL(rendererIndexPath(repoRoot)).href;
  const start = (fake: FakeElectron, argv: string[] = ["/usr/bin/canopy"]) =>
    startDesktop(fake as unknown as DesktopElectron, {
      appDir: repoRoot,
      argv,
      cwd: dir,
      env: { CANOPY_DB: path.join(dir, "data", "library.db"), CANOPY_NO_WATCH: "1", CANOPY_NO_DEMO: "1" },
      platform: "linux",
    });

  it("opens the guarded window, binds the API, sets the menu, and opens files from argv and a second instance", async () => {
    const fake = createFakeElectron({ workAreas: [screen] });
    start(fake, ["/usr/bin/canopy", sessionFile("first.jsonl")]);
    await until(
      () => fake.windows.length === 1 || fake.log.some((line) => line.startsWith("dialog")),
      "the window",
    );
    expect(fake.log.filter((line) => line.startsWith("dialog"))).toEqual([]);
    const [window] = fake.windows;
    if (!window) return;
    expect(fake.log).toContain("app.enableSandbox");
    expect(window.options).toMatchObject({
      webPreferences: { sandbox: true, contextIsolation: true, devTools: true },
    });
    expect(typeof window.webContents.windowOpenHandler).toBe("function");
    expect(typeof fake.session.defaultSession.permissionRequest).toBe("function");
    expect(fake.menu.template?.length).toBeGreaterThan(4);
    expect(await fake.invoke("library:list", {}, appUrl)).toMatchObject({ ok: true });

    window.webContents.emit("did-finish-load");
    await until(
      () => window.webContents.sent.some((m) => m.channel === "app:command"),
      "the open-session command",
    );
    expect(window.webContents.sent.find((m) => m.channel === "app:command")?.payload).toEqual({
      command: "open-session",
      sessionId: "id-first.jsonl",
    });

    // A second start focuses the window and opens its files (a missing one is skipped).
    fake.app.emit("second-instance", {}, ["/usr/bin/canopy", "second.jsonl"], dir);
    expect(fake.log.filter((line) => line === "window.focus")).toHaveLength(1);
    sessionFile("second.jsonl");
    fake.app.emit("second-instance", {}, ["/usr/bin/canopy", "second.jsonl"], dir);
    await until(
      () => window.webContents.sent.filter((m) => m.channel === "app:command").length === 2,
      "the second file",
    );
    expect(fake.log.filter((line) => line === "window.focus")).toHaveLength(2);

    const drop = preventable();
    window.webContents.emit("will-navigate", drop, pathToFileURL(sessionFile("dropped.jsonl")).href);
    expect(drop.defaultPrevented).toBe(true);
    await until(
      () => window.webContents.sent.filter((m) => m.channel === "app:command").length === 3,
      "the dropped file",
    );

    const themeItem = (fake.menu.template as MenuItemConstructorOptions[])
      .flatMap((item) => (Array.isArray(item.submenu) ? item.submenu : []))
      .flatMap((item) => (Array.isArray(item.submenu) ? item.submenu : []))
      .find((item) => item.id === "theme-dark");
    (themeItem?.click as (() => void) | undefined)?.();
    expect(fake.nativeTheme.themeSource).toBe("dark");
    expect(readWindowState(path.join(dir, "data", "window-state.json"), [screen]).theme).toBe("dark");

    // Quitting waits for the import runner to end, closes the library, then quits again.
    const quitting = preventable();
    fake.app.emit("will-quit", quitting);
    expect(quitting.defaultPrevented).toBe(true);
    expect(fake.log).not.toContain("app.quit");
    await until(() => fake.log.includes("app.quit"), "the quit after the import runner ended");
    const again = preventable();
    fake.app.emit("will-quit", again);
    expect(again.defaultPrevented).toBe(false);
  });

  it("quits at once when another instance holds the lock", () => {
    const fake = createFakeElectron({ lock: false });
    start(fake);
    expect(fake.log).toContain("app.quit");
    expect(fake.windows).toHaveLength(0);
  });
});
