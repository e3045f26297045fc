/**
 * The application menu as a template (no Electron call here, so it is testable): File (import,
 * export), Edit, Session (compact, prune, go to leaf), View (appearance, reload, DevTools in development
 * only), Window, Help. Actions that concern the page reach it as `app:command` events.
 */
import type { MenuItemConstructorOptions } from "electron";
import type { AppCommand } from "../core/api/dto-app.ts";
import type { ThemeSource } from "./window-state.ts";

export interface MenuActions {
  /** Opens the file dialog and imports the chosen .jsonl files. */
  importFiles(): void;
  /** Opens the folder dialog and imports every session below the folder. */
  importFolder(): void;
  /** Sends a command to the window (the `app:command` event). */
  send(command: AppCommand): void;
  setTheme(theme: ThemeSource): void;
  openDataFolder(): void;
}

export interface MenuOptions {
  isMac: boolean;
  /** Development build: the DevTools item is there. */
  isDev: boolean;
  theme: ThemeSource;
}

const THEMES: readonly { theme: ThemeSource; label: string }[] = [
  { theme: "system", label: "Follow System" },
  { theme: "light", label: "Light" },
  { theme: "dark", label: "Dark" },
];

export function buildMenuTemplate(actions: MenuActions, options: MenuOptions): MenuItemConstructorOptions[] {
  const { isMac, isDev } = options;
  const appMenu: MenuItemConstructorOptions[] = isMac
    ? [
        {
          label: "Canopy",
          submenu: [
            { role: "about" },
            { type: "separator" },
            { role: "services" },
            { type: "separator" },
            { role: "hide" },
            { role: "hideOthers" },
            { role: "unhide" },
            { type: "separator" },
            { role: "quit" },
          ],
        },
      ]
    : [];
  return [
    ...appMenu,
    {
      label: "&File",
      submenu: [
        {
          id: "import-files",
          label: "Import Session Files…",
          accelerator: "CmdOrCtrl+O",
          click: () => actions.importFiles(),
        },
        {
          id: "import-folder",
          label: "Import Folder…",
          accelerator: "CmdOrCtrl+Shift+O",
          click: () => actions.importFolder(),
        },
        { type: "separator" },
        {
          id: "export",
          label: "Export…",
          accelerator: "CmdOrCtrl+E",
          click: () => actions.send({ command: "export" }),
        },
        { type: "separator" },
        isMac ? { role: "close" } : { role: "quit" },
      ],
    },
    { role: "editMenu" },
    {
      label: "&Session",
      submenu: [
        {
          id: "compact",
          label: "Compact…",
          accelerator: "CmdOrCtrl+Shift+K",
          click: () => actions.send({ command: "compact" }),
        },
        {
          id: "prune",
          label: "Prune Old Tool Output…",
          accelerator: "CmdOrCtrl+Shift+P",
          click: () => actions.send({ command: "prune" }),
        },
        {
          id: "go-to-leaf",
          label: "Go to Leaf",
          accelerator: "CmdOrCtrl+L",
          click: () => actions.send({ command: "go-to-leaf" }),
        },
      ],
    },
    {
      label: "&View",
      submenu: [
        {
          label: "Appearance",
          submenu: THEMES.map(({ theme, label }) => ({
            id: `theme-${theme}`,
            label,
            type: "radio" as const,
            checked: options.theme === theme,
            click: () => actions.setTheme(theme),
          })),
        },
        { type: "separator" },
        { role: "reload", accelerator: "CmdOrCtrl+R" },
        ...(isDev
          ? [{ role: "toggleDevTools" as const, accelerator: isMac ? "Alt+Cmd+I" : "Ctrl+Shift+I" }]
          : []),
        { type: "separator" },
        { role: "resetZoom" },
        { role: "zoomIn" },
        { role: "zoomOut" },
        { type: "separator" },
        { role: "togglefullscreen" },
      ],
    },
    { role: "windowMenu" },
    {
      role: "help",
      submenu: [
        { id: "shortcuts", label: "Keyboard Shortcuts", click: () => actions.send({ command: "shortcuts" }) },
        { id: "data-folder", label: "Open Data Folder", click: () => actions.openDataFolder() },
      ],
    },
  ];
}
