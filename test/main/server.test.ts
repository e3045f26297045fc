// Browser-mode transport: the contract over HTTP with a token, events over WebSocket, static
// files confined to the renderer folder, and expected failures as data.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { type BrowserMode, startBrowserMode } from "../../main/serve.ts";
import { fixturePath } from "../helpers/fixtures.ts";

let mode: BrowserMode;
let base: string;
let dir: string;

async function post(channel: string, body: unknown, token: string | null = mode.token) {
  const response = await fetch(`${base}/api/${channel}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(token === null ? {} : { "x-canopy-token": token }) },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return {
    status: response.status,
    json: (await response.json()) as {
      ok: boolean;
      value?: unknown;
      error?: { code: string; message: string };
    },
  };
}

/** Sends raw bytes (what no fetch would send) and resolves with everything the server answers. */
function rawExchange(text: string, then?: (socket: net.Socket) => void): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(mode.port, "127.0.0.1", () => socket.write(text));
    let answer = "";
    socket.on("data", (data) => {
      answer += String(data);
      then?.(socket);
    });
    socket.on("error", () => undefined);
    socket.on("close", () => resolve(answer));
    setTimeout(() => socket.destroy(), 2000);
  });
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), "canopy-server-"));
  const renderer = path.join(dir, "renderer");
  mkdirSync(renderer);
  writeFileSync(path.join(renderer, "index.html"), "<!doctype html><title>Canopy</title>");
  writeFileSync(path.join(dir, "secret.txt"), "do not serve");
  mode = await startBrowserMode({
    dbPath: path.join(dir, "library.db"),
    rendererDir: renderer,
    seedDemo: false,
  });
  base = `http://127.0.0.1:${mode.port}`;
});

afterAll(async () => {
  await mode.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("browser-mode server", () => {
  it("listens on 127.0.0.1 and prints a URL carrying the token", () => {
    expect(mode.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]{48}$/);
  });

  it("refuses API calls without the right token", async () => {
    expect((await post("library:list", {}, null)).status).toBe(401);
    expect((await post("library:list", {}, "wrong")).status).toBe(401);
    expect((await post("library:list", {})).json).toEqual({ ok: true, value: [] });
  });

  it("tells a page with a stale token to open the URL the server printed", async () => {
    const answer = await post("library:list", {}, "stale");
    expect(answer.json.error?.message).toMatch(/open the URL it printed/);
  });

  it("returns expected failures as data", async () => {
    expect((await post("library:nope", {})).json.error?.code).toBe("not_found");
    expect((await post("session:get", { sessionId: 42 })).json.error?.code).toBe("invalid_input");
    expect((await post("session:get", "{not json")).status).toBe(400);
    const missing = await post("session:get", { sessionId: "missing" });
    expect(missing.json).toMatchObject({ ok: false, error: { code: "not_found" } });
    const noFile = await post("library:import", { path: "/nonexistent/dir" });
    expect(noFile.json).toMatchObject({
      ok: false,
      error: { code: "not_found", message: "No such file or folder: /nonexistent/dir" },
    });
  });

  it("serves the renderer and nothing outside it", async () => {
    const index = await fetch(`${base}/`);
    expect(index.status).toBe(200);
    expect(index.headers.get("content-security-policy")).toContain("default-src 'self'");
    const traversal = await fetch(`${base}/..%2Fsecret.txt`);
    expect(await traversal.text()).not.toContain("do not serve");
  });

  it("pushes events over a WebSocket that requires the token", async () => {
    const refused = new WebSocket(`ws://127.0.0.1:${mode.port}/events?token=wrong`);
    await new Promise<void>((resolve) => refused.on("error", () => resolve()));

    const socket = new WebSocket(`ws://127.0.0.1:${mode.port}/events?token=${mode.token}`);
    await new Promise<void>((resolve, reject) => {
      socket.on("open", () => resolve());
      socket.on("error", reject);
    });
    const received = new Promise<{ event: string; payload: { sessionIds: string[] } }>((resolve) => {
      socket.on("message", (data) => {
        const message = JSON.parse(String(data)) as { event: string; payload: { sessionIds: string[] } };
        if (message.event === "library:changed") resolve(message);
      });
    });
    const result = await post("library:import", { path: fixturePath("tree-00.jsonl") });
    expect(result.json.ok).toBe(true);
    const event = await received;
    expect(event.payload.sessionIds).toEqual(["01a2361e-31af-75a7-95c2-9bc5d25359f5"]);
    socket.close();
  });

  it("answers a request target that is no URL with 400 and keeps serving (any web page can send one)", async () => {
    const answer = await rawExchange(
      "GET //:99999/ HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
    );
    expect(answer.split("\r\n")[0]).toBe("HTTP/1.1 400 Bad Request");
    const upgrade = await rawExchange(
      "GET //[ HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
    );
    expect(upgrade.split("\r\n")[0]).toBe("HTTP/1.1 401 Unauthorized");
    expect((await post("library:list", {})).json.ok).toBe(true);
  });

  it("calls a channel with a malformed escape unknown instead of failing", async () => {
    const result = await post("%E0", {});
    expect(result.json).toEqual({ ok: false, error: { code: "not_found", message: "unknown channel: %E0" } });
  });

  it("closes only the event socket of a client that breaks the protocol", async () => {
    // In the server process such an error stops Canopy; here the test runner would catch it.
    const thrown: unknown[] = [];
    const onThrown = (error: unknown) => thrown.push(error);
    process.on("uncaughtException", onThrown);
    let sent = false;
    const answer = await rawExchange(
      `GET /events?token=${mode.token} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n` +
        "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
      (socket) => {
        // A client frame without the mask the protocol requires.
        if (!sent) socket.write(Buffer.from([0x81, 0x02, 0x68, 0x69]));
        sent = true;
      },
    );
    process.off("uncaughtException", onThrown);
    expect(answer.split("\r\n")[0]).toBe("HTTP/1.1 101 Switching Protocols");
    expect(thrown).toEqual([]);
    expect((await post("library:list", {})).json.ok).toBe(true);
  });

  it("refuses a request naming another host (DNS rebinding), even with the token", async () => {
    const rebound = (request: string) =>
      rawExchange(`${request}\r\nHost: evil.example:${mode.port}\r\nConnection: close\r\n\r\n`);
    expect((await rebound("GET / HTTP/1.1")).split("\r\n")[0]).toBe("HTTP/1.1 403 Forbidden");
    const api = await rebound(
      `POST /api/library:list HTTP/1.1\r\nx-canopy-token: ${mode.token}\r\nContent-Length: 0`,
    );
    expect(api.split("\r\n")[0]).toBe("HTTP/1.1 403 Forbidden");
    const local = await rawExchange(
      `GET / HTTP/1.1\r\nHost: localhost:${mode.port}\r\nConnection: close\r\n\r\n`,
    );
    expect(local.split("\r\n")[0]).toBe("HTTP/1.1 200 OK");
  });

  it("opens the event socket only to the page's own origin, even with the token", async () => {
    const open = (origin: string, host = `127.0.0.1:${mode.port}`) =>
      new Promise<boolean>((resolve) => {
        const socket = new WebSocket(`ws://127.0.0.1:${mode.port}/events?token=${mode.token}`, {
          origin,
          headers: { host },
        });
        socket.on("open", () => {
          socket.close();
          resolve(true);
        });
        socket.on("error", () => resolve(false));
      });
    expect(await open("http://evil.example")).toBe(false);
    expect(await open("http://localhost:1234")).toBe(false);
    expect(await open(`http://evil.example:${mode.port}`, `evil.example:${mode.port}`)).toBe(false);
    expect(await open(`http://127.0.0.1:${mode.port}`)).toBe(true);
    expect(await open(`http://localhost:${mode.port}`, `localhost:${mode.port}`)).toBe(true);
  });

  it("says in one line when the port is taken, and leaves the library closed", async () => {
    const second = path.join(dir, "second.db");
    const failure = await startBrowserMode({
      dbPath: second,
      rendererDir: path.join(dir, "renderer"),
      seedDemo: false,
      port: mode.port,
    }).then(
      () => null,
      (error: unknown) => error as Error,
    );
    expect(failure?.message).toBe(
      `port ${mode.port} on 127.0.0.1 is in use: choose another with --port N, or leave --port out for a free one`,
    );
    // Its connection was closed: the WAL and shared-memory files are gone with it.
    expect(existsSync(`${second}-wal`)).toBe(false);
  });
});
