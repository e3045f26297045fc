/**
 * Pipeline test harness: a fresh library per test (temp folder, own database, no demo), the
 * in-process API with unwrapping helpers, small session files written as JSONL and imported,
 * the fake model configured through `settings:set`, and the exact prompt texts from prompts/.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Channel, RequestInput, RequestOutput } from "../../../core/api/contract.ts";
import type { ApiError } from "../../../core/api/dto.ts";
import { type Api, createApi } from "../../../main/api/dispatch.ts";
import { createAppContext } from "../../../main/app-context.ts";
import { requireSession } from "../../../main/library/load.ts";
import { computeSessionStats } from "../../../main/library/stats.ts";
import type { Database, Statement } from "better-sqlite3";
import { expect, vi } from "vitest";
import {
  type FakeServer,
  type FakeServerOptions,
  type RecordedRequest,
  startFakeOpenAiServer,
} from "../../helpers/fake-openai-server.ts";
import { repoRoot } from "../../helpers/fixtures.ts";

export const FAKE_KEY_ENV = "FAKE_KEY";
export const FAKE_KEY = "sk-test";

export interface Harness {
  dir: string;
  dbPath: string;
  api: Api;
  /** Calls a channel and returns its value; a failure throws with its code and message. */
  call<C extends Channel>(channel: C, input: RequestInput<C>): Promise<RequestOutput<C>>;
  /** Calls a channel that must fail and returns the error. */
  fail<C extends Channel>(channel: C, input: RequestInput<C>): Promise<ApiError>;
  /** Writes the session as `<name>.jsonl` in the temp folder, imports it, returns its id. */
  importSession(session: SessionFile, name?: string): Promise<string>;
  /** Points `settings.model` at the fake server. */
  configureFakeModel(server: FakeServer, options?: { stream?: boolean }): Promise<void>;
  /** Entry count and view leaf of a session (what "nothing changed" compares). */
  snapshot(sessionId: string): Promise<{ entryCount: number; viewLeafId: string | null; ids: string[] }>;
  close(): void;
}

export interface HarnessOptions {
  /** Load hook modules from `<dir>/hooks` (default false, so tests register hooks directly). */
  loadUserHooks?: boolean;
  /** Runs before the app context exists (e.g. to write hook modules into `dir`). */
  prepare?: (dir: string) => void;
  /** Reuse a folder (and its database) instead of a new temp folder. */
  dir?: string;
  /** Environment variables besides the fake key (what `apiKeyEnv` settings read). */
  env?: Record<string, string>;
}

export function createHarness(options: HarnessOptions = {}): Harness {
  const dir = options.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), "canopy-pipelines-"));
  options.prepare?.(dir);
  const dbPath = path.join(dir, "library.db");
  const ctx = createAppContext({
    dbPath,
    seedDemo: false,
    loadUserHooks: options.loadUserHooks ?? false,
    env: { [FAKE_KEY_ENV]: FAKE_KEY, ...options.env },
  });
  const api = createApi(ctx);
  const call = async <C extends Channel>(channel: C, input: RequestInput<C>): Promise<RequestOutput<C>> => {
    const result = await api.call(channel, input);
    if (!result.ok) throw new Error(`${channel} failed: ${result.error.code}: ${result.error.message}`);
    return result.value;
  };
  const fail = async <C extends Channel>(channel: C, input: RequestInput<C>): Promise<ApiError> => {
    const result = await api.call(channel, input);
    if (result.ok)
      throw new Error(`${channel} was expected to fail but returned ${JSON.stringify(result.value)}`);
    return result.error;
  };
  return {
    dir,
    dbPath,
    api,
    call,
    fail,
    async importSession(session, name = "session") {
      const file = path.join(dir, `${name}.jsonl`);
      fs.writeFileSync(file, session.text());
      const report = await call("library:import", { path: file });
      const sessionId = report.files[0]?.sessionId;
      if (!sessionId) throw new Error(`import failed: ${JSON.stringify(report.files[0])}`);
      return sessionId;
    },
    async configureFakeModel(server, { stream = false } = {}) {
      await call("settings:set", {
        key: "model",
        value: {
          baseUrl: server.baseUrl,
          id: "fake-model",
          contextWindow: 200000,
          apiKeyEnv: FAKE_KEY_ENV,
          stream,
        },
      });
    },
    async snapshot(sessionId) {
      const detail = await call("session:get", { sessionId });
      return {
        entryCount: detail.summary.entryCount,
        viewLeafId: detail.summary.viewLeafId,
        ids: detail.entries.map((stored) => stored.entry.id),
      };
    },
    close() {
      if (ctx.db.open) ctx.db.close();
    },
  };
}

export function removeDir(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
}

/** A harness with the fake OpenAI-compatible server its tests talk to. */
export interface ServedHarness {
  server: FakeServer;
  h: Harness;
}

export interface ServedHarnessOptions {
  /** Point `settings.model` at the server (`configureFakeModel`). */
  model?: boolean;
  /** With `model`: the model streams its replies. */
  stream?: boolean;
  /** Set `compaction.keepRecentTokens`. */
  keepRecentTokens?: number;
  /** How the fake server answers by default. */
  server?: FakeServerOptions;
  /** The harness's folder, hooks and environment. */
  harness?: HarnessOptions;
}

/** A fake server and a fresh harness, set up as `options` say (a pipeline test's beforeEach). */
export async function startServedHarness(options: ServedHarnessOptions = {}): Promise<ServedHarness> {
  const server = await startFakeOpenAiServer(options.server);
  const h = createHarness(options.harness);
  if (options.model) await h.configureFakeModel(server, { stream: options.stream ?? false });
  if (options.keepRecentTokens !== undefined) {
    await h.call("settings:set", { key: "compaction.keepRecentTokens", value: options.keepRecentTokens });
  }
  return { server, h };
}

/** Closes the harness's database and removes its folder (a test's afterEach). */
export function closeHarness(h: Harness): void {
  h.close();
  removeDir(h.dir);
}

/** Closes the harness (closeHarness) and the server. */
export async function closeServedHarness({ server, h }: ServedHarness): Promise<void> {
  closeHarness(h);
  await server.close();
}

// ── session files ────────────────────────────────────────────────────────────

const T0 = Date.parse("2026-02-01T10:00:00.000Z");

export interface UsageNumbers {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
  totalTokens?: number;
}

export interface ToolCallSpec {
  name: string;
  args: Record<string, unknown>;
  id?: string;
}

type Json = Record<string, unknown>;

/**
 * A session file under construction: entries chain onto the previous one unless a parent is
 * given, timestamps are one second apart, ids are chosen by the test.
 */
export class SessionFile {
  readonly entries: Json[] = [];
  private last: string | null = null;
  private readonly header: Json;

  constructor(options: { id?: string; omp?: boolean } = {}) {
    this.header = {
      type: "session",
      version: 3,
      id: options.id ?? "0195f0c2-1111-7000-8000-000000000001",
      timestamp: new Date(T0).toISOString(),
      cwd: "/work/project",
      ...(options.omp ? { title: "Pipeline test session" } : {}),
    };
  }

  /** The next entry becomes a child of `id` (null: a new root). */
  from(id: string | null): this {
    this.last = id;
    return this;
  }

  add(id: string, type: string, fields: Json, parentId: string | null = this.last): this {
    const at = this.entries.length + 1;
    this.entries.push({ type, id, parentId, timestamp: new Date(T0 + at * 1000).toISOString(), ...fields });
    this.last = id;
    return this;
  }

  private message(id: string, message: Json, parentId?: string | null): this {
    const at = this.entries.length + 1;
    return this.add(id, "message", { message: { ...message, timestamp: T0 + at * 1000 } }, parentId);
  }

  user(id: string, text: string, parentId?: string | null): this {
    return this.message(id, { role: "user", content: [{ type: "text", text }] }, parentId);
  }

  assistant(
    id: string,
    text: string,
    options: { calls?: ToolCallSpec[]; usage?: UsageNumbers; parentId?: string | null } = {},
  ): this {
    const usage = options.usage ?? { input: 0, output: 0 };
    const content: Json[] = text === "" ? [] : [{ type: "text", text }];
    for (const [i, call] of (options.calls ?? []).entries()) {
      content.push({
        type: "toolCall",
        id: call.id ?? `${id}_call${i}`,
        name: call.name,
        arguments: call.args,
      });
    }
    return this.message(
      id,
      {
        role: "assistant",
        content,
        api: "openai-completions",
        provider: "openai",
        model: "gpt-test",
        usage: {
          input: usage.input,
          output: usage.output,
          cacheRead: usage.cacheRead ?? 0,
          cacheWrite: usage.cacheWrite ?? 0,
          totalTokens:
            usage.totalTokens ??
            usage.input + usage.output + (usage.cacheRead ?? 0) + (usage.cacheWrite ?? 0),
          cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
        },
        stopReason: (options.calls?.length ?? 0) > 0 ? "toolUse" : "stop",
      },
      options.parentId,
    );
  }

  toolResult(id: string, text: string, toolName: string, toolCallId = `${id}_for`): this {
    return this.message(id, {
      role: "toolResult",
      toolCallId,
      toolName,
      content: [{ type: "text", text }],
      isError: false,
    });
  }

  compaction(
    id: string,
    fields: { summary: string; firstKeptEntryId: string; tokensBefore?: number } & Json,
  ): this {
    return this.add(id, "compaction", { tokensBefore: 1000, ...fields });
  }

  text(): string {
    return `${[this.header, ...this.entries].map((line) => JSON.stringify(line)).join("\n")}\n`;
  }
}

/** Text of exactly `tokens` heuristic tokens (4 chars each), starting with a readable label. */
export function sized(label: string, tokens: number): string {
  const length = tokens * 4;
  const body = `${label} `.padEnd(length, "lorem ipsum ");
  return body.slice(0, length);
}

// ── prompts and requests ─────────────────────────────────────────────────────

/** A prompt file as Canopy loads it (line endings normalized, trimmed). */
export function promptText(name: string): string {
  return fs
    .readFileSync(path.join(repoRoot, "prompts", `${name}.md`), "utf8")
    .replace(/\r\n?/g, "\n")
    .trim();
}

/** The compaction context template with the summary inserted verbatim (D8). */
export function compactionFraming(summary: string): string {
  return promptText("compaction-summary-context").replace("{{summary}}", summary);
}

export function branchFraming(summary: string): string {
  return promptText("branch-summary-context").replace("{{summary}}", summary);
}

export interface ChatBody {
  model: string;
  messages: { role: string; content: string }[];
  max_tokens?: number;
  stream?: boolean;
  [key: string]: unknown;
}

export function chatRequests(server: FakeServer): RecordedRequest[] {
  return server.requests.filter((request) => request.path === "/v1/chat/completions");
}

export function chatBody(request: RecordedRequest | undefined): ChatBody {
  if (!request) throw new Error("no such request");
  return request.body as ChatBody;
}

/** The user prompt of a chat request. */
export function userPrompt(request: RecordedRequest | undefined): string {
  return chatBody(request).messages[1]?.content ?? "";
}

export function systemPrompt(request: RecordedRequest | undefined): string {
  return chatBody(request).messages[0]?.content ?? "";
}

export function conversationBlock(serialized: string): string {
  return `<conversation>\n${serialized}\n</conversation>\n\n`;
}

/** Waits until `check` holds (polling), or fails after `timeoutMs`. */
export async function until(check: () => boolean, timeoutMs = 5000, what = "condition"): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

// ── long sessions (the scale tests) ──────────────────────────────────────────

/**
 * u0/a0 … u{turns-1}/a{turns-1} on one path (`question i` / `answer i`); `afterTurn` may add
 * entries after turn i (labels, a side branch) before the next turn chains on.
 */
export function turnsSession(turns: number, afterTurn?: (file: SessionFile, i: number) => void): SessionFile {
  const file = new SessionFile();
  for (let i = 0; i < turns; i++) {
    file.user(`u${i}`, `question ${i}`).assistant(`a${i}`, `answer ${i}`);
    afterTurn?.(file, i);
  }
  return file;
}

/** How many JSON texts `run` parses (what a scale test reads to tell "a few entries" from "all"). */
export async function parsesDuring(run: () => Promise<unknown>): Promise<number> {
  const spy = vi.spyOn(JSON, "parse");
  try {
    await run();
    return spy.mock.calls.length;
  } finally {
    spy.mockRestore();
  }
}

/** Writes `text` as `<name>.jsonl` in the harness folder, imports it and gives its session id. */
export async function importText(h: Harness, text: string, name: string): Promise<string> {
  const file = path.join(h.dir, `${name}.jsonl`);
  fs.writeFileSync(file, text);
  const report = await h.call("library:import", { path: file });
  const sessionId = report.files[0]?.sessionId;
  if (!sessionId) throw new Error(`${name} did not import`);
  return sessionId;
}

/** The session's stored figures equal a full recount (`step` names the moment when they do not). */
export function expectRecounted(h: Harness, sessionId: string, step: string): void {
  const { db } = h.api.ctx;
  const row = requireSession(db, sessionId);
  expect({ step, ...row }).toMatchObject({ step, ...computeSessionStats(db, row.sid).patch });
}

/**
 * Rows `db`'s statements hand to JS (all, get, iterate), rows they change (run), and JSON.parse
 * calls and the characters they parse, while `run` runs.
 */
export async function readsDuring(
  db: Database,
  run: () => unknown,
): Promise<{ rows: number; parsed: number; parsedChars: number; written: number }> {
  const proto = Object.getPrototypeOf(db.prepare("SELECT 1")) as Statement;
  const { all, get, iterate, run: runStatement } = proto;
  let rows = 0;
  let written = 0;
  vi.spyOn(proto, "all").mockImplementation(function (this: Statement, ...args: unknown[]) {
    const result = all.apply(this, args);
    rows += result.length;
    return result;
  });
  vi.spyOn(proto, "get").mockImplementation(function (this: Statement, ...args: unknown[]) {
    const result = get.apply(this, args);
    if (result !== undefined) rows++;
    return result;
  });
  vi.spyOn(proto, "iterate").mockImplementation(function* (this: Statement, ...args: unknown[]) {
    for (const row of iterate.apply(this, args)) {
      rows++;
      yield row;
    }
  });
  vi.spyOn(proto, "run").mockImplementation(function (this: Statement, ...args: unknown[]) {
    const result = runStatement.apply(this, args);
    written += result.changes;
    return result;
  });
  const parse = vi.spyOn(JSON, "parse");
  try {
    await run();
    const parsedChars = parse.mock.calls.reduce((sum, [text]) => sum + String(text).length, 0);
    return { rows, parsed: parse.mock.calls.length, parsedChars, written };
  } finally {
    vi.restoreAllMocks();
  }
}
