/**
 * Builds small v3 session files for tests: a chain of user/assistant/tool-result entries with
 * deterministic ids, assistant usage and model, written to a temp folder.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";

export interface ChainStep {
  role: "user" | "assistant" | "toolResult";
  text: string;
  model?: string;
  usage?: { input: number; output: number; totalTokens?: number };
  stopReason?: "stop" | "error" | "aborted" | "toolUse";
  errorMessage?: string;
  /** ms since epoch of the message (defaults to a fixed clock). */
  at?: number;
  toolName?: string;
}

export function writeChainSession(dir: string, name: string, steps: ChainStep[], sessionId = `session-${name}`): string {
  const base = Date.parse("2026-11-01T10:00:00.000Z");
  const lines: string[] = [
    JSON.stringify({ type: "session", version: 3, id: sessionId, timestamp: new Date(base).toISOString(), cwd: "/tmp/project" }),
  ];
  let parentId: string | null = null;
  steps.forEach((step, i) => {
    const id = `e${String(i).padStart(7, "0")}`;
    const at = step.at ?? base + i * 1000;
    let message: Record<string, unknown>;
    if (step.role === "user") message = { role: "user", content: [{ type: "text", text: step.text }], timestamp: at };
    else if (step.role === "toolResult") {
      message = {
        role: "toolResult",
        toolCallId: `call-${i}`,
        toolName: step.toolName ?? "bash",
        content: [{ type: "text", text: step.text }],
        isError: false,
        timestamp: at,
      };
    } else {
      const usage = step.usage ?? { input: 0, output: 0 };
      message = {
        role: "assistant",
        content: step.stopReason === "error" ? [] : [{ type: "text", text: step.text }],
        api: "openai-completions",
        provider: "canopy",
        model: step.model ?? "fake-model",
        usage: { cacheRead: 0, cacheWrite: 0, ...usage, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
        stopReason: step.stopReason ?? "stop",
        ...(step.errorMessage ? { errorMessage: step.errorMessage } : {}),
        timestamp: at,
      };
    }
    lines.push(JSON.stringify({ type: "message", id, parentId, timestamp: new Date(at).toISOString(), message }));
    parentId = id;
  });
  const file = path.join(dir, `${name}.jsonl`);
  writeFileSync(file, `${lines.join("\n")}\n`);
  return file;
}

/** A text of about `tokens` estimated tokens (4 chars each). */
export function textOf(tokens: number, word = "word"): string {
  return `${word} `.repeat(Math.ceil((tokens * 4) / (word.length + 1))).slice(0, tokens * 4);
}
