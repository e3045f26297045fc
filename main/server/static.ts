/**
 * Serves the built renderer (dist/renderer) for browser mode: files only from inside that folder,
 * index.html for the app's own routes, and a strict Content-Security-Policy like the Electron window's.
 */
import { createReadStream, existsSync, statSync } from "node:fs";
import type { ServerResponse } from "node:http";
import path from "node:path";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".json": "application/json",
  ".woff2": "font/woff2",
};

export const CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self' ws://127.0.0.1:* http://127.0.0.1:*; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

export function serveStatic(rootDir: string, urlPath: string, res: ServerResponse): void {
  let relative: string;
  try {
    relative = decodeURIComponent(urlPath.split("?")[0] ?? "/");
  } catch {
    res.writeHead(400).end("bad path");
    return;
  }
  const root = path.resolve(rootDir);
  let file = path.resolve(root, `.${relative}`);
  if (file !== root && !file.startsWith(root + path.sep)) {
    res.writeHead(403).end("forbidden");
    return;
  }
  if (!existsSync(file) || statSync(file).isDirectory()) file = path.join(root, "index.html");
  if (!existsSync(file)) {
    res.writeHead(500, { "content-type": "text/plain" }).end("renderer is not built: run `npm run build`");
    return;
  }
  res.writeHead(200, {
    "content-type": TYPES[path.extname(file)] ?? "application/octet-stream",
    "content-security-policy": CONTENT_SECURITY_POLICY,
    "x-content-type-options": "nosniff",
    "cache-control": "no-cache",
  });
  createReadStream(file).pipe(res);
}
