// The Electron edge without Electron: main's bindIpc, the preload's bridge and the renderer's client
// joined by a fake channel that copies like Electron (structuredClone over IPC, contextBridge's
// 1,000-level limit), answering real handlers on a real library that holds an entry nested 100,000
// deep — which a live-object edge cannot carry (structuredClone and contextBridge both give up).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { CanopyBridge } from "../../core/api/bridge.ts";
import type { ContextView } from "../../core/api/dto.ts";
import { bridgeFromWire, type CanopyWireBridge } from "../../core/api/wire.ts";
import { createWireBridge } from "../../core/api/wire-preload.ts";
import { toJson } from "../../core/text/json-deep.ts";
import { type Api, createApi } from "../../main/api/dispatch.ts";
import { createAppContext } from "../../main/app-context.ts";
import { bindIpc } from "../../main/ipc.ts";
import { createFakeIpcChannel, type FakeIpcChannel, passContextBridge } from "../helpers/fake-ipc-channel.ts";

const ts = "2026-01-01T00:00:00Z";
const DEPTH = 100_000;
const deepObject = (d: number) => `${'{"a":'.repeat(d)}1${"}".repeat(d)}`;
const deepArray = (d: number) => `${"[".repeat(d)}0${"]".repeat(d)}`;
const appUrl = "file:///opt/canopy/dist/renderer/index.html";

/** A session whose tool call arguments and tool result details nest `depth` deep. */
function deepSession(depth: number): string {
  const usage = '"usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2}';
  return [
    `{"type":"session","version":3,"id":"deep","timestamp":"${ts}","cwd":"/x"}`,
    `{"type":"message","id":"u1","parentId":null,"timestamp":"${ts}","message":{"role":"user","content":"hello deepword"}}`,
    `{"type":"message","id":"a1","parentId":"u1","timestamp":"${ts}","message":{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"bash","arguments":${deepObject(depth)}}],"provider":"p","model":"m",${usage},"stopReason":"toolUse","timestamp":1}}`,
    `{"type":"message","id":"t1","parentId":"a1","timestamp":"${ts}","message":{"role":"toolResult","toolCallId":"c1","toolName":"bash","content":[{"type":"text","text":"output"}],"details":${deepArray(depth)},"isError":false,"timestamp":2}}`,
    `{"type":"message","id":"u2","parentId":"t1","timestamp":"${ts}","message":{"role":"user","content":"last"}}`,
  ]
    .join("\n")
    .concat("\n");
}

/** Nesting depth of a JSON value, without recursion. */
function depthOf(value: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop() as [unknown, number];
    deepest = Math.max(deepest, depth);
    if (item !== null && typeof item === "object")
      for (const child of Object.values(item)) stack.push([child, depth + 1]);
  }
  return deepest;
}

let dir: string;
let api: Api;
let channel: FakeIpcChannel;
let page: CanopyBridge;
let unbind: () => void;

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "canopy-ipc-wire-"));
  api = createApi(
    createAppContext({
      dbPath: path.join(dir, "library.db"),
      seedDemo: false,
      loadUserHooks: false,
      env: {},
    }),
  );
  channel = createFakeIpcChannel(appUrl);
  unbind = bindIpc(api, {
    ipcMain: channel.ipcMain,
    targets: () => [channel.webContents],
    isTrustedUrl: (url) => url === appUrl,
  });
  // What the page sees: the preload's bridge, passed through contextBridge, under the renderer's client.
  const exposed = passContextBridge(createWireBridge(channel.ipcRenderer, () => "")) as CanopyWireBridge;
  page = bridgeFromWire(exposed);
  const file = path.join(dir, "deep.jsonl");
  fs.writeFileSync(file, deepSession(DEPTH));
  const imported = await page.request["library:import"]({ path: file });
  expect(imported).toMatchObject({ ok: true, value: { files: [{ sessionId: "deep" }] } });
});

afterEach(() => {
  unbind();
  api.ctx.db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("the Electron edge with an entry nested 100,000 deep", () => {
  it("is what a live-object edge could not carry: structuredClone and contextBridge refuse the answer", async () => {
    const answer = await api.call("context:get", { sessionId: "deep", agentMessages: false });
    expect(answer.ok).toBe(true);
    expect(depthOf(answer)).toBeGreaterThan(DEPTH);
    expect(() => structuredClone(answer)).toThrow(RangeError);
    expect(() => passContextBridge(answer)).toThrow(/contextBridge recursion depth exceeded/);
  });

  it("answers the LLM view and the agent's context through IPC and contextBridge", async () => {
    const answer = await page.request["context:get"]({ sessionId: "deep", agentMessages: false });
    if (!answer.ok) throw new Error(answer.error.message);
    const view: ContextView = answer.value;
    expect(view.messages.map((m) => m.role)).toEqual(["user", "assistant", "toolResult", "user"]);
    expect(view.messageEntryIds).toEqual(["u1", "a1", "t1", "u2"]);
    expect(depthOf(view.messages[1])).toBeGreaterThan(DEPTH);
    const withAgent = await page.request["context:get"]({ sessionId: "deep", leafId: "t1" });
    if (!withAgent.ok) throw new Error(withAgent.error.message);
    expect(withAgent.value.agentMessages?.map((m) => m.role)).toEqual(["user", "assistant", "toolResult"]);
    expect(depthOf(withAgent.value.agentMessages?.[2])).toBeGreaterThan(DEPTH);
    // The deep value arrives whole: the same JSON as the handler's own answer.
    const direct = await api.call("context:get", { sessionId: "deep", leafId: "t1" });
    expect(toJson(withAgent)).toBe(toJson(direct));
  });

  it("exports the session's text, the deep lines verbatim", async () => {
    const answer = await page.request["session:export"]({ sessionId: "deep" });
    if (!answer.ok) throw new Error(answer.error.message);
    expect(answer.value.text).toBe(deepSession(DEPTH));
  });

  it("carries a handler's failure, invalid input and events as data", async () => {
    expect(await page.request["context:get"]({ sessionId: "nope" })).toMatchObject({
      ok: false,
      error: { code: "not_found" },
    });
    const bad = await page.request["context:get"]({ sessionId: 7 } as unknown as { sessionId: string });
    expect(bad).toMatchObject({ ok: false, error: { code: "invalid_input" } });
    const heard: unknown[] = [];
    const off = page.on("session:changed", (payload) => heard.push(payload));
    api.ctx.events.emit("session:changed", { sessionId: "deep", viewLeafId: "t1" });
    off();
    api.ctx.events.emit("session:changed", { sessionId: "deep", viewLeafId: "u1" });
    expect(heard).toEqual([{ sessionId: "deep", viewLeafId: "t1" }]);
  });

  it("refuses a request whose input is not JSON text, on both sides of the edge", async () => {
    const main = await channel.ipcRenderer.invoke("context:get", "{not json");
    expect(JSON.parse(main as string)).toMatchObject({ ok: false, error: { code: "invalid_input" } });
    const preload = createWireBridge(channel.ipcRenderer, () => "");
    const send = preload.request["context:get"] as (input: unknown) => Promise<unknown>;
    await expect(send({ sessionId: "deep" })).rejects.toThrow(/JSON text/);
  });
});
