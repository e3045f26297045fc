/**
 * Browser mode: the built renderer plus the whole contract over HTTP (POST /api/<channel>) and
 * events over WebSocket (/events), bound to 127.0.0.1 and guarded by a random token that the
 * printed URL carries. Requests without the token are refused, and so are requests naming
 * another host and event sockets opened from another origin (origin.ts).
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { WebSocketServer } from "ws";
import { EXPORT_FILE_TYPE } from "../../core/api/contract.ts";
import type { ApiResult } from "../../core/api/dto.ts";
import type { Api } from "../api/dispatch.ts";
import { isTextExport } from "../api/export-answer.ts";
import { encodeOrTooLarge } from "../api/too-large.ts";
import { sendExportDownload } from "./export-download.ts";
import { sendExportJson } from "./export-json.ts";
import { isLocalHost, isSameOrigin } from "./origin.ts";
import { serveStatic } from "./static.ts";
import { toJson } from "../../core/text/json-deep.ts";
import { jsonPieces } from "../../core/text/json-pieces.ts";

const MAX_BODY_BYTES = 16 * 1024 * 1024;
/** The page never sends anything over the event socket: a larger frame closes it. */
const MAX_SOCKET_FRAME_BYTES = 64 * 1024;

export interface BrowserServer {
  url: string;
  port: number;
  token: string;
  server: Server;
  close(): Promise<void>;
}

export interface ServeOptions {
  api: Api;
  rendererDir: string;
  port?: number;
  token?: string;
}

/** Each start prints a new token, so a page left open across a restart lands here: say what to do. */
export const WRONG_TOKEN_MESSAGE =
  "This page's access token is not the running server's (each `npm run serve` prints a new URL): open the URL it printed";

function tokenMatches(expected: string, given: string | null | undefined): boolean {
  if (!given) return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * The request target as a URL, or null for one no URL can be made of (`//:99999/`, `//[`): such
 * a request, which any web page can send with an <img>, must get a 400 and not stop the server.
 */
function requestUrl(req: IncomingMessage): URL | null {
  try {
    return new URL(req.url ?? "/", "http://127.0.0.1");
  } catch {
    return null;
  }
}

function channelOf(pathname: string): string {
  const raw = pathname.slice("/api/".length);
  try {
    return decodeURIComponent(raw);
  } catch {
    // A malformed escape (`%E0`) names no channel: the dispatcher says it is unknown.
    return raw;
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error("request body too large"));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

/** Bytes gathered per write of an answer. */
const ANSWER_WRITE_BYTES = 1 << 20;

/**
 * The answer's JSON as pieces, an item of its lists each (json-pieces.ts: a 100k-entry
 * session:get was one JSON.stringify of 200 MB, several times slower); when one piece is too long
 * for a string, the one-line failure saying what to ask for instead (thrown out of this async
 * handler, it would stop the server).
 */
function answerPieces(channel: string, result: ApiResult<unknown>): string[] {
  // The result, its value, a list in the value: each item is one piece.
  return encodeOrTooLarge(channel, result, (answer) => jsonPieces(answer, 3));
}

/** Writes the pieces encoded straight into buffers of ANSWER_WRITE_BYTES: never one string. */
function sendAnswer(res: ServerResponse, pieces: readonly string[]): void {
  res.writeHead(200, { "content-type": "application/json" });
  let buffer = Buffer.allocUnsafe(ANSWER_WRITE_BYTES);
  let used = 0;
  for (const piece of pieces) {
    // UTF-8 takes at most 3 bytes per UTF-16 unit: a piece that may not fit goes after a flush.
    if (piece.length * 3 > ANSWER_WRITE_BYTES - used) {
      if (used > 0) {
        res.write(buffer.subarray(0, used));
        buffer = Buffer.allocUnsafe(ANSWER_WRITE_BYTES);
        used = 0;
      }
      if (piece.length * 3 > ANSWER_WRITE_BYTES) {
        res.write(piece);
        continue;
      }
    }
    used += buffer.write(piece, used);
  }
  res.end(buffer.subarray(0, used));
}

/** The page asks for an export as the file itself (a download), not as JSON. */
function wantsJsonl(req: IncomingMessage): boolean {
  return (req.headers.accept ?? "").split(",").some((type) => type.trim().startsWith(EXPORT_FILE_TYPE));
}

export async function startBrowserServer(options: ServeOptions): Promise<BrowserServer> {
  const token = options.token ?? randomBytes(24).toString("hex");
  const { api } = options;

  const server = createServer(async (req, res) => {
    const url = requestUrl(req);
    if (!url) {
      res.writeHead(400, { "content-type": "text/plain" }).end("bad request");
      return;
    }
    if (!isLocalHost(req.headers.host)) {
      res
        .writeHead(403, { "content-type": "text/plain" })
        .end("Canopy answers only at 127.0.0.1 or localhost: open the URL it printed");
      return;
    }
    if (url.pathname.startsWith("/api/")) {
      if (!tokenMatches(token, req.headers["x-canopy-token"] as string | undefined)) {
        res.writeHead(401, { "content-type": "application/json" });
        res.end(toJson({ ok: false, error: { code: "invalid_input", message: WRONG_TOKEN_MESSAGE } }));
        return;
      }
      if (req.method !== "POST") {
        res.writeHead(405).end();
        return;
      }
      let input: unknown;
      try {
        const body = await readBody(req);
        input = body.length > 0 ? JSON.parse(body) : {};
      } catch (error) {
        res.writeHead(400, { "content-type": "application/json" });
        res.end(toJson({ ok: false, error: { code: "invalid_input", message: String(error) } }));
        return;
      }
      // Background indexing waits until the answer has left (search-indexer.ts beginAnswer).
      const answered = api.ctx.searchIndexer?.beginAnswer();
      if (answered) res.once("close", answered);
      const channel = channelOf(url.pathname);
      if (channel === "session:export" && wantsJsonl(req)) {
        // The JSONL file itself, not JSON-encoded into the answer (export-download.ts).
        await sendExportDownload(api, input, res);
        return;
      }
      if (isTextExport(channel, input)) {
        // The text streamed into the JSON answer a slice per turn (export-json.ts).
        await sendExportJson(api, input, res);
        return;
      }
      const result = await api.callUnknown(channel, input);
      sendAnswer(res, answerPieces(channel, result));
      return;
    }
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405).end();
      return;
    }
    serveStatic(options.rendererDir, url.pathname, res);
  });

  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_SOCKET_FRAME_BYTES });
  // A client's protocol error (an unmasked or oversized frame) closes its socket; unheard, the
  // "error" event would be thrown and stop the server.
  wss.on("connection", (ws) => ws.on("error", () => ws.terminate()));
  server.on("upgrade", (req, socket, head) => {
    const url = requestUrl(req);
    if (
      url?.pathname !== "/events" ||
      !tokenMatches(token, url.searchParams.get("token")) ||
      !isLocalHost(req.headers.host) ||
      !isSameOrigin(req.headers.origin, req.headers.host)
    ) {
      socket.write("HTTP/1.1 401 Unauthorized\r\n\r\n");
      socket.destroy();
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit("connection", ws, req));
  });
  const unsubscribe = api.ctx.events.subscribe((name, payload) => {
    const message = toJson({ event: name, payload });
    for (const client of wss.clients) if (client.readyState === client.OPEN) client.send(message);
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) => {
      unsubscribe();
      reject(
        error.code === "EADDRINUSE" || error.code === "EACCES"
          ? new Error(
              `port ${options.port} on 127.0.0.1 is ${error.code === "EADDRINUSE" ? "in use" : "not open to this user"}: choose another with --port N, or leave --port out for a free one`,
            )
          : error,
      );
    });
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/?token=${token}`,
    port,
    token,
    server,
    close: async () => {
      unsubscribe();
      for (const client of wss.clients) client.terminate();
      wss.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
