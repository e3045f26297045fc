// The three summarization calls (SPEC §6.3, §6.5, §6.6): prompt layout (behaviours 42, 43),
// budgets, remote routing, error texts and cancellation, over a recording fake summarizer.
import { describe, expect, it } from "vitest";
import { serializeConversation } from "../../../core/compaction/serialize.ts";
import {
  generateShortSummary,
  generateSummary,
  generateTurnPrefixSummary,
  isAbortError,
} from "../../../core/compaction/summarize.ts";
import type { AgentMessage } from "../../../core/session/entries.ts";
import { convertToLlm } from "../../../core/session/llm-messages.ts";
import { assistant, toolResult, user } from "../_builders.ts";
import { abortable, prompts, recordingSummarizer, templates } from "./_fake.ts";

const messages: AgentMessage[] = [
  user("Fix the parser"),
  assistant("Looking at it", {
    content: [
      { type: "text", text: "Looking at it" },
      { type: "toolCall", id: "c1", name: "read", arguments: { path: "src/parser.ts" } },
    ],
  }),
  toolResult("export function parse() {}"),
  { role: "compactionSummary", summary: "Earlier work", tokensBefore: 10, timestamp: 0 },
];
const conversation = `<conversation>\n${serializeConversation(convertToLlm(messages, templates))}\n</conversation>\n\n`;
const base = { prompts, templates, reserveTokens: 16384 };

describe("generateSummary (§6.3)", () => {
  it("behaviour 42: conversation, previous summary, additional context, update instructions, in order", async () => {
    const summarizer = recordingSummarizer();
    const text = await generateSummary(messages, {
      ...base,
      summarizer,
      previousSummary: "PREV",
      extraContext: ["first note", "second note"],
    });
    expect(text).toBe("update summary");
    const [request] = summarizer.requests;
    expect(summarizer.requests).toHaveLength(1);
    expect(request?.prompt).toBe(
      `${conversation}<previous-summary>\nPREV\n</previous-summary>\n\n` +
        `<additional-context>\n- first note\n- second note\n</additional-context>\n\n${prompts.updateSummary}`,
    );
    expect(request).toMatchObject({
      purpose: "update",
      systemPrompt: prompts.system,
      maxTokens: 13107,
      reasoning: "high",
      previousSummary: "PREV",
    });
    expect(request?.messages).toEqual(convertToLlm(messages, templates));
  });

  it("first summary: no previous-summary block, no empty additional-context block", async () => {
    const summarizer = recordingSummarizer();
    await generateSummary(messages, { ...base, summarizer, extraContext: [] });
    expect(summarizer.requests[0]?.prompt).toBe(conversation + prompts.firstSummary);
    expect(summarizer.requests[0]?.purpose).toBe("history");
    expect(summarizer.requests[0]?.previousSummary).toBeUndefined();
  });

  it("the conversation shows summaries through the context template", async () => {
    const summarizer = recordingSummarizer();
    await generateSummary(messages, { ...base, summarizer });
    expect(summarizer.requests[0]?.prompt).toContain(
      `[User]: ${templates.compactionSummary("Earlier work")}`,
    );
    expect(summarizer.requests[0]?.prompt).toContain('[Assistant tool calls]: read(path="src/parser.ts")');
  });

  it('behaviour 43: custom instructions end the instructions with "\\n\\nAdditional focus: X"', async () => {
    const summarizer = recordingSummarizer();
    await generateSummary(messages, { ...base, summarizer, customInstructions: "X" });
    expect(summarizer.requests[0]?.prompt).toBe(
      `${conversation}${prompts.firstSummary}\n\nAdditional focus: X`,
    );
    expect(summarizer.requests[0]?.customInstructions).toBe("X");
  });

  it("a prompt override replaces the instructions; custom instructions are still appended", async () => {
    const summarizer = recordingSummarizer();
    await generateSummary(messages, {
      ...base,
      summarizer,
      previousSummary: "PREV",
      promptOverride: "HOOK PROMPT",
      customInstructions: "X",
    });
    const prompt = summarizer.requests[0]?.prompt ?? "";
    expect(prompt.endsWith("</previous-summary>\n\nHOOK PROMPT\n\nAdditional focus: X")).toBe(true);
    expect(prompt).not.toContain(prompts.updateSummary);
  });

  it("maxTokens is floor(0.8 × reserveTokens)", async () => {
    const summarizer = recordingSummarizer();
    await generateSummary(messages, { ...base, summarizer, reserveTokens: 1001 });
    expect(summarizer.requests[0]?.maxTokens).toBe(800);
  });

  it("remote mode: the call goes to the remote backend with the same system prompt and prompt", async () => {
    const model = recordingSummarizer();
    const remote = recordingSummarizer(() => "S", { kind: "remote" });
    expect(await generateSummary(messages, { ...base, summarizer: model, remote })).toBe("S");
    expect(model.requests).toHaveLength(0);
    expect(remote.requests[0]?.systemPrompt).toBe(prompts.system);
    expect(remote.requests[0]?.prompt).toBe(conversation + prompts.firstSummary);
  });

  it("an error reply throws `Summarization failed: <message | Unknown error>`", async () => {
    const failing = recordingSummarizer(() => ({
      text: "",
      stopReason: "error",
      errorMessage: "rate limited",
    }));
    await expect(generateSummary(messages, { ...base, summarizer: failing })).rejects.toThrow(
      new Error("Summarization failed: rate limited"),
    );
    const silent = recordingSummarizer(() => ({ text: "", stopReason: "error" }));
    await expect(generateSummary(messages, { ...base, summarizer: silent })).rejects.toThrow(
      new Error("Summarization failed: Unknown error"),
    );
  });

  it("an error thrown by a backend passes unchanged (e.g. the remote endpoint's HTTP failure)", async () => {
    const remote = recordingSummarizer(() => {
      throw new Error("Remote compaction failed (500 Internal Server Error)");
    });
    await expect(generateSummary(messages, { ...base, summarizer: remote })).rejects.toThrow(
      new Error("Remote compaction failed (500 Internal Server Error)"),
    );
  });

  it("the reply text is returned verbatim and streamed text reaches onText", async () => {
    const seen: string[] = [];
    const summarizer = recordingSummarizer((r) => {
      r.onText?.("  ## Goal");
      return "  ## Goal\n\n\n  x  ";
    });
    const text = await generateSummary(messages, { ...base, summarizer, onText: (t) => seen.push(t) });
    expect(text).toBe("  ## Goal\n\n\n  x  ");
    expect(seen).toEqual(["  ## Goal"]);
  });
});

describe("cancellation", () => {
  it("an already aborted signal throws an AbortError without calling the backend", async () => {
    const { signal, abort } = abortable();
    abort();
    const summarizer = recordingSummarizer();
    const error = await generateSummary(messages, { ...base, summarizer, signal }).catch((e: unknown) => e);
    expect(isAbortError(error)).toBe(true);
    expect((error as Error).name).toBe("AbortError");
    expect(summarizer.requests).toHaveLength(0);
  });

  it("an abort during the call, an aborted reply, or a thrown abort all become AbortError", async () => {
    const { signal, abort } = abortable();
    const midway = recordingSummarizer(() => {
      abort();
      return "partial";
    });
    const answers = [
      generateSummary(messages, { ...base, summarizer: midway, signal }),
      generateTurnPrefixSummary(messages, {
        ...base,
        summarizer: recordingSummarizer(() => ({ text: "", stopReason: "aborted" })),
      }),
      generateShortSummary(messages, {
        ...base,
        summarizer: recordingSummarizer(() => {
          throw new DOMException("The operation was aborted.", "AbortError");
        }),
      }),
    ];
    for (const answer of answers) {
      const error = await answer.catch((e: unknown) => e);
      expect((error as Error).name).toBe("AbortError");
    }
  });
});

describe("turn-prefix call (§6.5)", () => {
  it("prompt = conversation + turn-prefix instructions; maxTokens floor(0.5 × reserve); reasoning high", async () => {
    const summarizer = recordingSummarizer();
    expect(await generateTurnPrefixSummary(messages, { ...base, summarizer })).toBe("turn-prefix summary");
    expect(summarizer.requests[0]).toMatchObject({
      purpose: "turn-prefix",
      prompt: conversation + prompts.turnPrefix,
      systemPrompt: prompts.system,
      maxTokens: 8192,
      reasoning: "high",
    });
    expect(summarizer.requests[0]?.previousSummary).toBeUndefined();
    expect(summarizer.requests[0]?.customInstructions).toBeUndefined();
  });

  it("error text: `Turn prefix summarization failed: …`", async () => {
    const summarizer = recordingSummarizer(() => ({
      text: "",
      stopReason: "error",
      errorMessage: "overloaded",
    }));
    await expect(generateTurnPrefixSummary(messages, { ...base, summarizer })).rejects.toThrow(
      new Error("Turn prefix summarization failed: overloaded"),
    );
  });
});

describe("short summary call (§6.6)", () => {
  it("prompt = conversation + history summary + additional context + short instructions", async () => {
    const summarizer = recordingSummarizer();
    await generateShortSummary(messages, {
      ...base,
      summarizer,
      historySummary: "HIST",
      extraContext: ["n"],
    });
    expect(summarizer.requests[0]).toMatchObject({
      purpose: "short",
      prompt:
        `${conversation}<previous-summary>\nHIST\n</previous-summary>\n\n` +
        `<additional-context>\n- n\n</additional-context>\n\n${prompts.shortSummary}`,
      maxTokens: 512,
      reasoning: "high",
      previousSummary: "HIST",
    });
  });

  it("an empty conversation still makes the call; maxTokens = min(512, floor(0.2 × reserve))", async () => {
    const summarizer = recordingSummarizer();
    await generateShortSummary([], { ...base, summarizer, reserveTokens: 1000 });
    expect(summarizer.requests[0]?.prompt).toBe(
      `<conversation>\n\n</conversation>\n\n${prompts.shortSummary}`,
    );
    expect(summarizer.requests[0]?.maxTokens).toBe(200);
  });

  it("error text: `Short summary failed: …`", async () => {
    const summarizer = recordingSummarizer(() => ({ text: "", stopReason: "error" }));
    await expect(generateShortSummary(messages, { ...base, summarizer })).rejects.toThrow(
      new Error("Short summary failed: Unknown error"),
    );
  });
});
