/**
 * Electron entry: lifecycle only. Hands the Electron objects to the desktop wiring (desktop.ts),
 * which is written against parameters so that everything below this file is tested without
 * Electron.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import {
  app,
  BrowserWindow,
  dialog,
  ipcMain,
  Menu,
  nativeTheme,
  safeStorage,
  screen,
  session,
  shell,
} from "electron";
import { startDesktop } from "./desktop.ts";

// dist/electron/main.js → the app folder is two levels up.
const appDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

startDesktop(
  { app, BrowserWindow, dialog, ipcMain, Menu, nativeTheme, safeStorage, screen, session, shell },
  { appDir, argv: process.argv, cwd: process.cwd(), env: process.env, platform: process.platform },
);
