/**
 * Generates a realistic v3 pi session for benchmarks: a long main path of user → assistant
 * (thinking, text, tool calls) → tool results, side branches with branch summaries, a few
 * compactions, model/thinking changes and labels. Seeded, so every run measures the same file.
 * CLI: node bench/generate-session.ts [entries=100000] [out=bench/out/generated-100k.jsonl]
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { seededRandom } from "../test/helpers/seeded-random.ts";

export interface GeneratedSession {
  text: string;
  entries: number;
  compactions: number;
  /** The tip of the main path: the leaf with the longest path. */
  deepestLeafId: string;
  mainPathLength: number;
}

const WORDS = (
  "the session tree node branch leaf parent child compaction summary context token model assistant user " +
  "tool result read write edit bash file path index query render layout import export search store " +
  "error retry timeout value function return const let type interface string number boolean array map " +
  "set promise async await module test expect describe refactor parser lexer cache commit diff patch"
).split(" ");

const rng = seededRandom;

export interface GenerateOptions {
  seed?: number;
  /** The header's session id (default: a fixed one). */
  sessionId?: string;
  /** Compact when the estimated context (chars / 4 since the first kept entry) passes this, as agents do. */
  compactAtTokens?: number;
  /** Tokens kept verbatim after a compaction (the cut lands on a user message before them). */
  keepRecentTokens?: number;
}

export function generateSession(count = 100_000, options: GenerateOptions = {}): GeneratedSession {
  const seed = options.seed ?? 42;
  const compactAtChars = (options.compactAtTokens ?? 160_000) * 4;
  const keepChars = (options.keepRecentTokens ?? 20_000) * 4;
  const random = rng(seed);
  const int = (lo: number, hi: number): number => lo + Math.floor(random() * (hi - lo + 1));
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const words = (n: number): string => {
    const out: string[] = [];
    for (let i = 0; i < n; i++) out.push(pick(WORDS));
    return out.join(" ");
  };
  // Output-like text: lines of code-ish words, heavier tail (some tool outputs are big).
  const output = (): string => {
    const lines = random() < 0.08 ? int(80, 400) : int(3, 40);
    const out: string[] = [];
    for (let i = 0; i < lines; i++) out.push(`${int(1, 999)}: ${words(int(2, 12))}`);
    return out.join("\n");
  };

  const lines: string[] = [];
  const used = new Set<string>();
  const newId = (): string => {
    let id: string;
    do
      id = Math.floor(random() * 0xffffffff)
        .toString(16)
        .padStart(8, "0");
    while (used.has(id));
    used.add(id);
    return id;
  };
  let clock = Date.parse("2026-06-01T08:00:00.000Z");
  const tick = (): { iso: string; ms: number } => {
    clock += int(200, 20_000);
    return { iso: new Date(clock).toISOString(), ms: clock };
  };
  const sessionId = options.sessionId ?? "0198c0de-0000-7000-8000-000000000042";
  lines.push(
    JSON.stringify({
      type: "session",
      version: 3,
      id: sessionId,
      timestamp: tick().iso,
      cwd: "/home/dev/bench",
    }),
  );

  const mainPath: string[] = [];
  let leaf: string | null = null;
  let lastLength = 0;
  const add = (fields: Record<string, unknown>, parent: string | null = leaf): string => {
    const id = newId();
    const t = tick();
    const line = JSON.stringify({ type: fields.type, id, parentId: parent, timestamp: t.iso, ...fields });
    lastLength = line.length;
    lines.push(line);
    return id;
  };
  /** Main-path entries since the current compaction's first kept entry: what the context holds. */
  let window: { id: string; chars: number; user: boolean }[] = [];
  let windowChars = 0;
  const onMain = (fields: Record<string, unknown>): string => {
    leaf = add(fields);
    mainPath.push(leaf);
    const message = fields.message as { role?: string } | undefined;
    window.push({ id: leaf, chars: lastLength, user: message?.role === "user" });
    windowChars += lastLength;
    return leaf;
  };

  onMain({ type: "model_change", provider: "anthropic", modelId: "claude-sonnet-4-5" });
  onMain({ type: "thinking_level_change", thinkingLevel: "medium" });

  const usage = () => {
    const input = int(2_000, 150_000);
    const output = int(50, 4_000);
    return {
      input,
      output,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: input + output,
      cost: { input: 0.01, output: 0.02, cacheRead: 0, cacheWrite: 0, total: 0.03 },
    };
  };
  const userMessage = (): Record<string, unknown> => ({
    type: "message",
    message: { role: "user", content: [{ type: "text", text: words(int(8, 90)) }], timestamp: clock },
  });
  const assistant = (toolCalls: { id: string; name: string }[]): Record<string, unknown> => {
    const content: unknown[] = [];
    if (random() < 0.6)
      content.push({ type: "thinking", thinking: words(int(20, 300)), thinkingSignature: "sig" });
    content.push({ type: "text", text: words(int(10, 200)) });
    for (const call of toolCalls) {
      content.push({
        type: "toolCall",
        id: call.id,
        name: call.name,
        arguments: { path: `src/${pick(WORDS)}.ts`, command: words(int(2, 20)) },
      });
    }
    return {
      type: "message",
      message: {
        role: "assistant",
        content,
        api: "anthropic-messages",
        provider: "anthropic",
        model: "claude-sonnet-4-5",
        usage: usage(),
        stopReason: toolCalls.length > 0 ? "toolUse" : "stop",
        timestamp: clock,
      },
    };
  };
  const toolResult = (call: { id: string; name: string }): Record<string, unknown> => ({
    type: "message",
    message: {
      role: "toolResult",
      toolCallId: call.id,
      toolName: call.name,
      content: [{ type: "text", text: output() }],
      isError: random() < 0.05,
      timestamp: clock,
    },
  });
  /** One user turn: user, then assistant/tool rounds, ending with a plain assistant reply. */
  const turn = (emit: (fields: Record<string, unknown>) => string): void => {
    emit(userMessage());
    const rounds = int(0, 4);
    for (let r = 0; r < rounds; r++) {
      const calls = Array.from({ length: int(1, 3) }, () => ({
        id: `toolu_${newId()}`,
        name: pick(["read", "bash", "edit", "write", "grep"]),
      }));
      emit(assistant(calls));
      for (const call of calls) emit(toolResult(call));
    }
    emit(assistant([]));
  };

  let nextBranch = 1_500;
  let compactions = 0;
  while (lines.length - 1 < count) {
    const produced = lines.length - 1;
    if (produced >= nextBranch && mainPath.length > 50) {
      // A side branch from a recent point on the main path, summarised when the user came back.
      nextBranch += int(1_000, 3_000);
      const from = mainPath[mainPath.length - int(5, 40)] as string;
      let side: string = from;
      const sideLength = int(3, 8);
      for (let i = 0; i < sideLength; i++) turn((f) => (side = add(f, side)));
      onMain({
        type: "branch_summary",
        fromId: leaf,
        summary: `Tried another approach: ${words(int(30, 120))}`,
      });
      continue;
    }
    if (windowChars > compactAtChars) {
      // Keep the most recent ~keepChars, cut at the user message that starts that stretch.
      let kept = 0;
      let cut = window.length - 1;
      while (cut > 0 && kept < keepChars) kept += (window[cut--] as (typeof window)[number]).chars;
      while (cut > 0 && !(window[cut] as (typeof window)[number]).user) cut--;
      const keptFrom = window[cut] as (typeof window)[number];
      const tokensBefore = Math.ceil(windowChars / 4);
      window = window.slice(cut);
      windowChars = window.reduce((sum, w) => sum + w.chars, 0);
      compactions++;
      onMain({
        type: "compaction",
        summary: `## Goal\n${words(200)}\n## Progress\n${words(400)}`,
        firstKeptEntryId: keptFrom.id,
        tokensBefore,
        details: { readFiles: ["src/a.ts"], modifiedFiles: ["src/b.ts"] },
      });
      continue;
    }
    if (random() < 0.01) onMain({ type: "label", targetId: leaf, label: words(2) });
    else if (random() < 0.005)
      onMain({ type: "thinking_level_change", thinkingLevel: pick(["low", "medium", "high"]) });
    turn(onMain);
  }
  return {
    text: `${lines.join("\n")}\n`,
    entries: lines.length - 1,
    compactions,
    deepestLeafId: mainPath.at(-1) as string,
    mainPathLength: mainPath.length,
  };
}

export type GeneratedFile = Omit<GeneratedSession, "text"> & { file: string; bytes: number };

/**
 * Writes the generated session next to a small `.meta.json`; an existing pair made with the
 * same count is reused (generation is deterministic, and takes seconds). The meta does not
 * record `options`: give sessions generated with other options a file of their own.
 */
export function writeGeneratedSession(
  file: string,
  count = 100_000,
  options: GenerateOptions = {},
): GeneratedFile {
  const metaFile = `${file}.meta.json`;
  if (fs.existsSync(file) && fs.existsSync(metaFile)) {
    const meta = JSON.parse(fs.readFileSync(metaFile, "utf8")) as GeneratedFile;
    if (meta.entries >= count && meta.bytes === fs.statSync(file).size) return { ...meta, file };
  }
  const { text, ...generated } = generateSession(count, options);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  const meta: GeneratedFile = { ...generated, file, bytes: Buffer.byteLength(text) };
  fs.writeFileSync(metaFile, JSON.stringify(meta));
  return meta;
}

/**
 * A folder of `sessions` generated sessions of `count` entries each (distinct seeds and ids), as a
 * user's sessions folder holds many medium files; reused when already written.
 */
export function writeGeneratedFolder(
  dir: string,
  sessions: number,
  count: number,
): { bytes: number; entries: number } {
  const metaFile = path.join(dir, "folder.meta.json");
  if (fs.existsSync(metaFile)) {
    const meta = JSON.parse(fs.readFileSync(metaFile, "utf8")) as {
      sessions: number;
      count: number;
      bytes: number;
      entries: number;
    };
    if (meta.sessions === sessions && meta.count === count) return meta;
  }
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  let bytes = 0;
  let entries = 0;
  for (let i = 0; i < sessions; i++) {
    const sessionId = `0198c0de-0000-7000-8000-${(1000 + i).toString(16).padStart(12, "0")}`;
    const { text, ...generated } = generateSession(count, { seed: 1000 + i, sessionId });
    fs.writeFileSync(path.join(dir, `session-${String(i).padStart(3, "0")}.jsonl`), text);
    bytes += Buffer.byteLength(text);
    entries += generated.entries;
  }
  fs.writeFileSync(metaFile, JSON.stringify({ sessions, count, bytes, entries }));
  return { bytes, entries };
}

/** Where the benches keep the generated 100k session. */
export function defaultGeneratedPath(count = 100_000): string {
  return path.join(path.dirname(fileURLToPath(import.meta.url)), "out", `generated-${count}.jsonl`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const count = Number(process.argv[2] ?? 100_000);
  const out = path.resolve(process.argv[3] ?? defaultGeneratedPath(count));
  const started = performance.now();
  const g = writeGeneratedSession(out, count);
  console.log(
    `${out}: ${g.entries} entries, ${(g.bytes / 1e6).toFixed(1)} MB, ${g.compactions} compactions, ` +
      `main path ${g.mainPathLength}, deepest leaf ${g.deepestLeafId} (${Math.round(performance.now() - started)} ms)`,
  );
}
