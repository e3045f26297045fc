// Token accounting: SPEC §4, behaviours 33–35, D18.
import { describe, expect, it } from "vitest";
import {
  calculateContextTokens,
  calculatePromptTokens,
  estimateTokens,
  getContextUsage,
  getLastAssistantUsage,
  shouldCompact,
} from "../../core/compaction/tokens.ts";
import type { AgentMessage, Usage } from "../../core/session/entries.ts";
import { assistant, chain, msg, toolResult, usage, user } from "./_builders.ts";

const IMAGE = { type: "image" as const, data: "AAAA", mimeType: "image/png" };

describe("measured usage (SPEC §4.2)", () => {
  it("B33: context tokens are totalTokens (1800), or 0 when all zero", () => {
    expect(calculateContextTokens(usage(1000, 500, 200, 100))).toBe(1800);
    expect(calculateContextTokens(usage(0))).toBe(0);
    // Without totalTokens the four parts are summed; missing fields count as 0.
    expect(calculateContextTokens({ input: 1000, output: 500, cacheRead: 200, cacheWrite: 100 })).toBe(1800);
    expect(calculateContextTokens({ input: 7 } as Partial<Usage>)).toBe(7);
    expect(calculateContextTokens(undefined)).toBe(0);
  });

  it("prompt tokens are input + cache when > 0, else context tokens", () => {
    expect(calculatePromptTokens(usage(1000, 500, 200, 100))).toBe(1300);
    expect(
      calculatePromptTokens({ input: 0, output: 40, cacheRead: 0, cacheWrite: 0, totalTokens: 40 }),
    ).toBe(40);
  });

  it("B34: last assistant usage skips aborted/errored replies; none → undefined", () => {
    const entries = chain(
      msg("u", null, user("q")),
      msg("a1", null, assistant("ok", { usage: usage(100) })),
      msg("a2", null, assistant("cut", { usage: usage(300), stopReason: "aborted" })),
      msg("a3", null, assistant("err", { usage: usage(400), stopReason: "error" })),
    );
    expect(getLastAssistantUsage(entries)?.input).toBe(100);
    expect(getLastAssistantUsage(chain(msg("u", null, user("q"))))).toBeUndefined();
    expect(getLastAssistantUsage([])).toBeUndefined();
  });
});

describe("threshold (SPEC §4.3)", () => {
  it("B35: reserve 10000 of 100000 → true at 95000, false at 89000 and 90000, never when disabled", () => {
    const on = { enabled: true, reserveTokens: 10000 };
    expect(shouldCompact(95000, 100000, on)).toBe(true);
    expect(shouldCompact(89000, 100000, on)).toBe(false);
    expect(shouldCompact(90000, 100000, on)).toBe(false);
    expect(shouldCompact(95000, 100000, { ...on, enabled: false })).toBe(false);
  });
});

describe("estimates (SPEC §4.1, D18)", () => {
  it("counts ceil(chars / 4) per role", () => {
    expect(estimateTokens(user("12345"))).toBe(2);
    expect(estimateTokens({ role: "user", content: "abcd", timestamp: 0 })).toBe(1);
    expect(
      estimateTokens({ role: "user", content: [{ type: "text", text: "abcd" }, IMAGE], timestamp: 0 }),
    ).toBe(1);
    const withCall = assistant("", {
      content: [
        { type: "text", text: "abcd" },
        { type: "thinking", thinking: "efgh" },
        { type: "toolCall", id: "c", name: "read", arguments: { path: "/a" } },
      ],
    });
    expect(estimateTokens(withCall)).toBe(Math.ceil((4 + 4 + 4 + JSON.stringify({ path: "/a" }).length) / 4));
    expect(
      estimateTokens(toolResult("abcdefgh", { content: [{ type: "text", text: "abcdefgh" }, IMAGE] })),
    ).toBe(Math.ceil((8 + 4800) / 4));
    const bash: AgentMessage = {
      role: "bashExecution",
      command: "ls",
      output: "a b",
      exitCode: 0,
      cancelled: false,
      truncated: false,
      timestamp: 0,
    };
    expect(estimateTokens(bash)).toBe(2);
    expect(
      estimateTokens({ role: "compactionSummary", summary: "x".repeat(9), tokensBefore: 0, timestamp: 0 }),
    ).toBe(3);
    expect(estimateTokens({ role: "branchSummary", summary: "x".repeat(8), fromId: "r", timestamp: 0 })).toBe(
      2,
    );
  });

  it("D18: custom messages count like tool results; python and file mentions stay at 0", () => {
    const custom: AgentMessage = {
      role: "custom",
      customType: "x",
      content: "abcdefgh",
      display: false,
      timestamp: 0,
    };
    expect(estimateTokens(custom)).toBe(2);
    expect(estimateTokens({ ...custom, content: [{ type: "text", text: "abcd" }, IMAGE] })).toBe(
      Math.ceil(4804 / 4),
    );
    const python: AgentMessage = {
      role: "pythonExecution",
      code: "x".repeat(100),
      output: "y",
      exitCode: 0,
      cancelled: false,
      truncated: false,
      timestamp: 0,
    };
    expect(estimateTokens(python)).toBe(0);
    expect(
      estimateTokens({ role: "fileMention", files: [{ path: "a", content: "x".repeat(50) }], timestamp: 0 }),
    ).toBe(0);
  });

  it("tolerates malformed messages", () => {
    expect(estimateTokens({ role: "user", timestamp: 0 } as unknown as AgentMessage)).toBe(0);
    expect(estimateTokens({ role: "assistant", content: [null, 3] } as unknown as AgentMessage)).toBe(0);
  });
});

describe("context usage (SPEC §4.4)", () => {
  it("uses the last assistant with usage (any stop reason) plus trailing estimates", () => {
    const messages: AgentMessage[] = [
      user("x".repeat(400)),
      assistant("a", { usage: usage(1000, 200) }),
      assistant("b", { usage: usage(2000, 0), stopReason: "aborted" }),
      user("y".repeat(40)),
    ];
    expect(getContextUsage(messages, 10000)).toEqual({
      tokens: 2010,
      usageTokens: 2000,
      trailingTokens: 10,
      percent: 20.1,
      contextWindow: 10000,
      lastUsageIndex: 2,
    });
  });

  it("without usage every message is estimated; no window → undefined", () => {
    const messages = [user("x".repeat(40)), user("y".repeat(8))];
    expect(getContextUsage(messages, 1000)).toMatchObject({ tokens: 12, usageTokens: 0, lastUsageIndex: -1 });
    expect(getContextUsage(messages, undefined)).toBeUndefined();
    expect(getContextUsage(messages, 0)).toBeUndefined();
  });
});
