/**
 * Electron security checklist pieces that take the Electron objects as parameters (testable with
 * fakes): navigation and new-window guards for every webContents, webviews refused, every
 * permission denied (but writing text to the clipboard), and the CSP header on every response.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { CONTENT_SECURITY_POLICY } from "./server/static.ts";

/** The page is only ever the app's own index.html (hash routes never navigate). */
export function isAppUrl(url: string, appIndexPath: string): boolean {
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== "file:") return false;
    parsed.hash = "";
    parsed.search = "";
    return path.resolve(fileURLToPath(parsed)) === path.resolve(appIndexPath);
  } catch {
    return false;
  }
}

export interface NavigationPolicy {
  /** dist/renderer/index.html of this app. */
  appIndexPath: string;
  /** Opens a link in the user's browser (only https links get here). */
  openExternal(url: string): void;
  /** A session file dropped on the window, which Chromium would navigate to, is opened instead. */
  openSessionFile(filePath: string): void;
}

export type NavigationDecision = { allow: true } | { allow: false; openFile?: string; openExternal?: string };

/** What a navigation of the page to `url` does: only the app itself loads; nothing else does. */
export function decideNavigation(url: string, policy: NavigationPolicy): NavigationDecision {
  if (isAppUrl(url, policy.appIndexPath)) return { allow: true };
  if (url.startsWith("file:")) {
    try {
      const file = fileURLToPath(url);
      if (file.toLowerCase().endsWith(".jsonl")) return { allow: false, openFile: file };
    } catch {
      return { allow: false };
    }
  }
  return { allow: false };
}

/** New windows are never opened; https links go to the user's browser. */
export function decideWindowOpen(url: string): { openExternal?: string } {
  return url.startsWith("https://") ? { openExternal: url } : {};
}

interface PreventableEvent {
  preventDefault(): void;
}

/** The parts of a webContents the guards use (Electron's WebContents has them). */
export interface GuardedContents {
  on(event: "will-navigate", listener: (event: PreventableEvent, url: string) => void): unknown;
  on(event: "will-redirect", listener: (event: PreventableEvent, url: string) => void): unknown;
  on(event: "will-attach-webview", listener: (event: PreventableEvent) => void): unknown;
  setWindowOpenHandler(handler: (details: { url: string }) => { action: "deny" }): void;
}

/** Installed on every webContents (`app.on("web-contents-created")`), not only the main window's. */
export function guardWebContents(contents: GuardedContents, policy: NavigationPolicy): void {
  const onNavigate = (event: PreventableEvent, url: string) => {
    const decision = decideNavigation(url, policy);
    if (decision.allow) return;
    event.preventDefault();
    if (decision.openFile) policy.openSessionFile(decision.openFile);
  };
  contents.on("will-navigate", onNavigate);
  contents.on("will-redirect", onNavigate);
  contents.on("will-attach-webview", (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    const decision = decideWindowOpen(url);
    if (decision.openExternal) policy.openExternal(decision.openExternal);
    return { action: "deny" };
  });
}

/**
 * The only permission granted: writing text to the clipboard (the "copy" buttons). Camera,
 * notifications, geolocation, reading the clipboard, … are all refused.
 */
export const ALLOWED_PERMISSIONS: ReadonlySet<string> = new Set(["clipboard-sanitized-write"]);

type Headers = Record<string, string | string[]>;

/** The parts of an Electron session the hardening uses. */
export interface HardenedSession {
  setPermissionRequestHandler(
    handler: ((contents: unknown, permission: string, callback: (granted: boolean) => void) => void) | null,
  ): void;
  setPermissionCheckHandler(handler: ((contents: unknown, permission: string) => boolean) | null): void;
  webRequest: {
    onHeadersReceived(
      listener:
        | ((
            details: { responseHeaders?: Headers },
            callback: (response: { responseHeaders?: Headers }) => void,
          ) => void)
        | null,
    ): void;
  };
}

export function hardenSession(session: HardenedSession): void {
  session.setPermissionRequestHandler((_contents, permission, callback) =>
    callback(ALLOWED_PERMISSIONS.has(permission)),
  );
  session.setPermissionCheckHandler((_contents, permission) => ALLOWED_PERMISSIONS.has(permission));
  // index.html carries the same policy in a meta tag; the header covers anything else served.
  session.webRequest.onHeadersReceived((details, callback) => {
    callback({
      responseHeaders: { ...details.responseHeaders, "Content-Security-Policy": [CONTENT_SECURITY_POLICY] },
    });
  });
}
