// Browser-mode transport: the contract over HTTP with a token, events over WebSocket, static
// files confined to the renderer folder, and expected failures as data.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
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
