// `canopy context`'s text form did not say which model and thinking level are in effect at the
// leaf (SPEC §3.2; context:get returns them), headed compaction and branch summaries, bash runs
// and custom messages all as "user", and did not show a failed reply's stop reason and error
// message. Checked against the fixtures' own expected model/thinking level and entry types.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCliCaptured } from "../helpers/cli.ts";

const FIXTURES = "/work/shared/fixtures";

interface Expected {
  leaf: string;
  contexts: Record<string, { thinkingLevel: string; model: { provider: string; modelId: string } | null }>;
}

let dir: string;
let db: string;

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "canopy-context-header-"));
  db = path.join(dir, "library.db");
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** The fixture's entries by id: type, and a message's role. */
function entryKinds(file: string): Map<string, { type: string; role?: string }> {
  const kinds = new Map<string, { type: string; role?: string }>();
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (line.trim() === "") continue;
    const entry = JSON.parse(line) as { type: string; id?: string; message?: { role?: string } };
    if (entry.id === undefined) continue;
    kinds.set(entry.id, { type: entry.type, ...(entry.message?.role ? { role: entry.message.role } : {}) });
  }
  return kinds;
}

/** What a message's heading should say, from the entry it came from. */
function expectedHeading(kind: { type: string; role?: string } | undefined): RegExp {
  if (kind?.type === "compaction") return /^user · compaction summary · entry /;
  if (kind?.type === "branch_summary") return /^user · branch summary · entry /;
  if (kind?.type === "custom_message") return /^user · custom message · entry /;
  if (kind?.role === "bashExecution") return /^user · bash run · entry /;
  if (kind?.role === "user") return /^user · entry /;
  if (kind?.role === "assistant") return /^assistant /;
  if (kind?.role === "toolResult") return /^tool result /;
  throw new Error(`unexpected source entry ${JSON.stringify(kind)}`);
}

describe("canopy context's header and headings", () => {
  it("say the model and thinking level in effect at each leaf, as the fixtures expect", async () => {
    let checked = 0;
    for (const name of ["tree-01", "tree-02"]) {
      const file = path.join(FIXTURES, `${name}.jsonl`);
      const expected = JSON.parse(
        readFileSync(path.join(FIXTURES, "expected", `${name}.contexts.json`), "utf8"),
      ) as Expected;
      for (const [leaf, context] of Object.entries(expected.contexts).slice(0, 8)) {
        const run = await runCliCaptured(["context", file, "--leaf", leaf, "--db", db]);
        expect(run.code, run.err).toBe(0);
        const model = context.model ? `${context.model.provider}/${context.model.modelId}` : "";
        expect(run.out.split("\n")[1], `${name} ${leaf}`).toBe(
          `model ${model} · thinking ${context.thinkingLevel}`,
        );
        checked++;
      }
    }
    expect(checked).toBe(16);
  });

  it("head summaries, bash runs and custom messages by what they are (one line each)", async () => {
    const file = path.join(FIXTURES, "tree-02.jsonl");
    const kinds = entryKinds(file);
    const expected = JSON.parse(
      readFileSync(path.join(FIXTURES, "expected", "tree-02.contexts.json"), "utf8"),
    ) as Expected;
    const seen = new Set<string>();
    for (const leaf of Object.keys(expected.contexts)) {
      const run = await runCliCaptured(["context", file, "--leaf", leaf, "--db", db]);
      expect(run.code, run.err).toBe(0);
      for (const match of run.out.matchAll(/^── \[\d+\](?: \[[^\]]+\])* (.*)$/gm)) {
        const heading = match[1] ?? "";
        if (heading.startsWith("[+]")) continue;
        const entry = / · entry (\S+) · /.exec(heading)?.[1] ?? "";
        const kind = kinds.get(entry);
        expect(heading, `${leaf} ${entry}`).toMatch(expectedHeading(kind));
        seen.add(kind?.type === "message" ? (kind.role ?? "") : (kind?.type ?? ""));
      }
    }
    // The leaves cover every kind this checks.
    expect([...seen].sort()).toEqual(
      [
        "assistant",
        "bashExecution",
        "branch_summary",
        "compaction",
        "custom_message",
        "toolResult",
        "user",
      ].sort(),
    );
  });

  it("say when the path sets no model or thinking level, and a failed reply's stop reason and error", async () => {
    const at = "2026-03-01T09:00:00.000Z";
    const lines = [
      { type: "session", version: 3, id: "no-settings", timestamp: at, cwd: "/w" },
      {
        type: "message",
        id: "u1",
        parentId: null,
        timestamp: at,
        message: { role: "user", content: "Hi", timestamp: 1 },
      },
      {
        type: "message",
        id: "a1",
        parentId: "u1",
        timestamp: at,
        message: {
          role: "assistant",
          content: [],
          api: "anthropic-messages",
          provider: "anthropic",
          model: "claude-test",
          usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0 },
          stopReason: "error",
          errorMessage: "529 Overloaded:\n  try again later",
          timestamp: 2,
        },
      },
      {
        type: "message",
        id: "u2",
        parentId: "a1",
        timestamp: at,
        message: { role: "user", content: "Again", timestamp: 3 },
      },
    ];
    const file = path.join(dir, "no-settings.jsonl");
    writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);

    const bare = await runCliCaptured(["context", file, "--leaf", "u1", "--db", db]);
    expect(bare.code, bare.err).toBe(0);
    expect(bare.out.split("\n")[1]).toBe(
      "model: none on this path (the agent uses its default model) · thinking: none on this path (the agent uses its default level, off unless configured)",
    );

    const failed = await runCliCaptured(["context", file, "--db", db]);
    expect(failed.code, failed.err).toBe(0);
    const out = failed.out.split("\n");
    expect(out[1]).toBe(
      "model anthropic/claude-test · thinking: none on this path (the agent uses its default level, off unless configured)",
    );
    // The error under the heading: in an 80-column terminal a long one pushed the entry and its
    // tokens two lines down (a real one: 226 characters).
    const heading = out.indexOf("── [2] [not sent] assistant · anthropic/claude-test · error · entry a1 · ~0 tokens");
    expect(heading).toBeGreaterThan(0);
    expect(out[heading + 1]).toBe("[error] 529 Overloaded: try again later");

    // --json stays exactly the message array.
    const json = await runCliCaptured(["context", file, "--json", "--db", db]);
    const messages = JSON.parse(json.out) as { role: string }[];
    expect(messages.map((message) => message.role)).toEqual(["user", "assistant", "user"]);
  });
});
