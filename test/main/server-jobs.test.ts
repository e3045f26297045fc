// Browser mode with two clients (two tabs) and a reconnect: a compaction or a chat turn one client
// starts against a slow local model server is heard starting by both, listed (with the text it
// streamed so far) to a client that connects meanwhile, cancelled by the other client, and heard
// ending by every connected client.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import type { Events } from "../../core/api/contract.ts";
import type { ChatTurnResultDto } from "../../core/api/dto-app.ts";
import type { ListedJobDto, RunningJobDto } from "../../core/api/dto-jobs.ts";
import { type BrowserMode, startBrowserMode } from "../../main/serve.ts";
import { apiCall } from "../helpers/browser-mode.ts";
import { type FakeServer, start } from "../helpers/fake-openai-server.ts";
import { FAKE_KEY, FAKE_KEY_ENV, until } from "./pipelines/harness.ts";
import { plainSession } from "./pipelines/sessions.ts";

/** A client's event socket and what it heard of the summary jobs. */
interface Client {
  socket: WebSocket;
  started: Events["job:started"][];
  ended: Events["job:ended"][];
  /** The reply texts chat:progressed told it. */
  replies: string[];
  close(): Promise<void>;
}

let mode: BrowserMode;
let fake: FakeServer;
let dir: string;
let sessionId: string;
const clients: Client[] = [];

const api = <T>(channel: string, input: unknown) => apiCall<T>(mode, channel, input);

/** What `POST /api/<channel>` answers (a failure as data, not thrown). */
async function post(channel: string, input: unknown): Promise<{ ok: boolean; error?: { code: string } }> {
  const response = await fetch(`http://127.0.0.1:${mode.port}/api/${channel}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-canopy-token": mode.token },
    body: JSON.stringify(input),
  });
  return (await response.json()) as { ok: boolean; error?: { code: string } };
}

async function connect(): Promise<Client> {
  const socket = new WebSocket(`ws://127.0.0.1:${mode.port}/events?token=${mode.token}`);
  const client: Client = {
    socket,
    started: [],
    ended: [],
    replies: [],
    close: () =>
      new Promise((resolve) => {
        if (socket.readyState === socket.CLOSED) resolve();
        socket.once("close", () => resolve());
        socket.close();
      }),
  };
  socket.on("message", (data) => {
    const message = JSON.parse(String(data)) as { event: string; payload: unknown };
    if (message.event === "job:started") client.started.push(message.payload as Events["job:started"]);
    if (message.event === "job:ended") client.ended.push(message.payload as Events["job:ended"]);
    if (message.event === "chat:progressed") client.replies.push((message.payload as Events["chat:progressed"]).text);
  });
  await new Promise<void>((resolve, reject) => {
    socket.once("open", () => resolve());
    socket.once("error", reject);
  });
  clients.push(client);
  return client;
}

beforeEach(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), "canopy-server-jobs-"));
  fake = await start();
  mode = await startBrowserMode({
    dbPath: path.join(dir, "library.db"),
    rendererDir: dir,
    seedDemo: false,
    watch: false,
    env: { [FAKE_KEY_ENV]: FAKE_KEY },
  });
  const file = path.join(dir, "session.jsonl");
  writeFileSync(file, plainSession().text());
  const report = await api<{ files: { sessionId: string | null }[] }>("library:import", { path: file });
  sessionId = report.files[0]?.sessionId ?? "";
  await api("settings:set", {
    key: "model",
    value: {
      baseUrl: fake.baseUrl,
      id: "fake-model",
      contextWindow: 200000,
      apiKeyEnv: FAKE_KEY_ENV,
      stream: false,
    },
  });
  await api("settings:set", { key: "compaction.keepRecentTokens", value: 1500 });
});

afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  await mode.stop();
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("summary jobs across clients", () => {
  it("one client starts a compaction, both hear it, the other cancels it, both hear it end", async () => {
    const a = await connect();
    const b = await connect();
    fake.enqueue({ type: "reply", text: "never sent", headersDelayMs: 10_000 });
    const running = post("compaction:run", { sessionId });
    await until(
      () => a.started.length === 1 && b.started.length === 1,
      5000,
      "both clients to hear the start",
    );
    const job: RunningJobDto = { jobId: a.started[0]?.jobId ?? "", sessionId, kind: "compaction" };
    expect(a.started).toEqual([job]);
    expect(b.started).toEqual([job]);
    expect(await api("job:list", {})).toEqual([{ ...job, text: "", requestAgeMs: expect.any(Number) }]);
    await until(() => fake.requests.length === 1, 5000, "the summary request");

    // B cancels the job A started: only its session is needed.
    expect(await api("compaction:abort", { sessionId })).toEqual({ aborted: true });
    expect(await running).toMatchObject({ ok: false, error: { code: "cancelled" } });
    const end = { ...job, outcome: "cancelled", entryId: null };
    await until(() => a.ended.length === 1 && b.ended.length === 1, 5000, "both clients to hear the end");
    expect(a.ended).toEqual([end]);
    expect(b.ended).toEqual([end]);
    await until(() => fake.requests[0]?.clientClosed === true, 5000, "the model request to be closed");
    expect(await api("job:list", {})).toEqual([]);
  });

  it("a client that reconnects while a job runs finds it listed and hears it end with its entry", async () => {
    const a = await connect();
    let b = await connect();
    await b.close();
    fake.enqueue(
      { type: "reply", text: "History.", headersDelayMs: 1500 },
      { type: "reply", text: "Short." },
    );
    const running = post("compaction:run", { sessionId });
    await until(() => a.started.length === 1, 5000, "the start");
    expect(b.started).toEqual([]);

    // B comes back (a reload, a dropped socket): it asks what runs, then hears the end.
    b = await connect();
    const listed = await api<ListedJobDto[]>("job:list", {});
    expect(listed).toEqual(a.started.map((job) => ({ ...job, text: "", requestAgeMs: expect.any(Number) })));
    const result = (await running) as { ok: boolean; value?: { entryId: string } };
    expect(result.ok).toBe(true);
    const end = { ...a.started[0], outcome: "done", entryId: result.value?.entryId };
    await until(() => b.ended.length === 1 && a.ended.length === 1, 5000, "the end");
    expect(b.ended).toEqual([end]);
    expect(a.ended).toEqual([end]);
    expect(await api("job:list", {})).toEqual([]);
  });

  it("a client that was away when the job ended finds nothing listed", async () => {
    const b = await connect();
    fake.enqueue({ type: "reply", text: "History.", headersDelayMs: 300 }, { type: "reply", text: "Short." });
    const running = post("compaction:run", { sessionId });
    await until(() => b.started.length === 1, 5000, "the start");
    await b.close();
    expect((await running).ok).toBe(true);
    expect(b.ended).toEqual([]);
    await connect();
    expect(await api("job:list", {})).toEqual([]);
  });
});

describe("chat turns across clients", () => {
  /** A streamed reply whose first chunk comes at once and the rest only after `pauseMs`. */
  const slowReply = (first: string, pauseMs: number, rest = " and the rest.") =>
    fake.enqueue({ type: "reply", chunks: [first, rest], chunkDelayMs: pauseMs });
  const streamModel = () =>
    api("settings:set", {
      key: "model",
      value: { baseUrl: fake.baseUrl, id: "fake-model", contextWindow: 200000, apiKeyEnv: FAKE_KEY_ENV, stream: true },
    });

  it("one client sends a message, the other hears the reply stream, finds it listed and stops it", async () => {
    await streamModel();
    const a = await connect();
    const b = await connect();
    slowReply("The reply so", 60_000);
    const sending = post("chat:send", { sessionId, text: "Write the docs" });
    await until(() => b.replies.length === 1 && a.replies.length === 1, 5000, "the first chunk in both");
    const job: RunningJobDto = {
      jobId: a.started[0]?.jobId ?? "",
      sessionId,
      kind: "chat",
      chat: { userText: "Write the docs", continuing: false },
    };
    expect(a.started).toEqual([job]);
    expect(b.started).toEqual([job]);
    expect(b.replies).toEqual(["The reply so"]);
    expect(await api("job:list", {})).toEqual([{ ...job, text: "The reply so", requestAgeMs: expect.any(Number) }]);

    // B stops the reply A asked for.
    expect(await api("chat:abort", { sessionId })).toEqual({ aborted: true });
    expect(await sending).toMatchObject({ ok: false, error: { code: "cancelled" } });
    const end = { ...job, outcome: "cancelled", entryId: null };
    await until(() => a.ended.length === 1 && b.ended.length === 1, 5000, "both clients to hear the end");
    expect(a.ended).toEqual([end]);
    expect(b.ended).toEqual([end]);
    await until(() => fake.requests[0]?.clientClosed === true, 5000, "the model request to be closed");
    expect(await api("job:list", {})).toEqual([]);
  });

  it("a client that reconnects mid-reply is listed the text so far and hears the turn end with its result", async () => {
    await streamModel();
    const a = await connect();
    let b = await connect();
    await b.close();
    slowReply("Half", 1500, " and the other half.");
    const sending = post("chat:send", { sessionId, text: "Go on" });
    await until(() => a.replies.length === 1, 5000, "the first chunk");
    expect(b.replies).toEqual([]);

    // B comes back (a reload): the reply so far is listed, not only the next chunk.
    b = await connect();
    const listed = await api<ListedJobDto[]>("job:list", {});
    expect(listed).toEqual([{ ...a.started[0], text: "Half", requestAgeMs: expect.any(Number) }]);
    const result = (await sending) as unknown as { ok: boolean; value: ChatTurnResultDto };
    expect(result.ok).toBe(true);
    await until(() => b.ended.length === 1, 5000, "the end");
    expect(b.replies).toEqual(["Half and the other half."]);
    expect(b.ended).toEqual([
      { ...a.started[0], outcome: "done", entryId: result.value.assistantEntryId, turn: result.value },
    ]);
    expect(await api("job:list", {})).toEqual([]);
  });
});
