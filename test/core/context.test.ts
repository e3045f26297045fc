// buildSessionContext: SPEC §3.1–3.3, behaviours 17–30.
import { describe, expect, it } from "vitest";
import { buildSessionContext } from "../../core/session/context.ts";
import { convertToLlm } from "../../core/session/llm-messages.ts";
import { assistant, chain, compaction, entry, msg, plainTemplates, textOf, user } from "./_builders.ts";

const texts = (entries: Parameters<typeof buildSessionContext>[0], leaf?: string | null) =>
  buildSessionContext(entries, leaf).messages.map((m) =>
    m.role === "compactionSummary" ? "SUMMARY" : textOf(m),
  );

const u = (id: string) => msg(id, null, user(id));
const a = (id: string) => msg(id, null, assistant(id));

describe("leaf selection (SPEC §3.1)", () => {
  it("B17: no entries → no messages, thinking off, no models", () => {
    const context = buildSessionContext([]);
    expect(context.messages).toEqual([]);
    expect(context.thinkingLevel).toBe("off");
    expect(context.models).toEqual({});
    expect(context.mode).toBe("none");
    expect(context.injectedTtsrRules).toEqual([]);
  });

  it("B18: leafId null with entries → empty context", () => {
    const entries = chain(u("u1"), a("a1"));
    const context = buildSessionContext(entries, null);
    expect(context.messages).toEqual([]);
    expect(context.leafId).toBeNull();
    expect(context.models).toEqual({});
  });

  it("B19: an unknown leaf id falls back to the last entry", () => {
    const entries = [...chain(u("u1"), a("a1")), msg("other", "u1", user("other"))];
    expect(texts(entries, "nope")).toEqual(["u1", "other"]);
    expect(buildSessionContext(entries, "nope").leafId).toBe("other");
  });

  it("B20: a leaf whose parent does not exist yields only its own message", () => {
    const entries = [...chain(u("u1"), a("a1")), msg("lonely", "missing", user("lonely"))];
    expect(texts(entries, "lonely")).toEqual(["lonely"]);
  });
});

describe("compaction (SPEC §3.1 step 5)", () => {
  it("B21: compaction keeps firstKept onwards", () => {
    const entries = chain(u("u1"), a("a1"), u("u2"), a("a2"), compaction("C", null, "u2"), u("u3"), a("a3"));
    const context = buildSessionContext(entries);
    expect(texts(entries)).toEqual(["SUMMARY", "u2", "a2", "u3", "a3"]);
    expect(context.messages[0]).toMatchObject({
      role: "compactionSummary",
      summary: "summary C",
      tokensBefore: 1000,
    });
    expect(context.messageEntryIds).toEqual(["C", "u2", "a2", "u3", "a3"]);
    expect(context.compaction?.id).toBe("C");
    expect(context.firstKeptEntryId).toBe("u2");
    expect(context.firstKeptOnPath).toBe(true);
  });

  it("B22: only the last compaction's summary counts", () => {
    const entries = chain(
      u("u1"),
      a("a1"),
      compaction("C1", null, "u1"),
      u("u2"),
      a("b"),
      u("u3"),
      a("c"),
      compaction("C2", null, "u3"),
      u("u4"),
      a("d"),
    );
    const context = buildSessionContext(entries);
    expect(context.messages).toHaveLength(5);
    expect(context.messages[0]).toMatchObject({ summary: "summary C2" });
    expect(texts(entries).slice(1)).toEqual(["u3", "c", "u4", "d"]);
    expect(JSON.stringify(context.messages)).not.toContain("summary C1");
  });

  it("B23: firstKeptEntryId on a sibling branch → summary plus what follows the compaction", () => {
    const entries = [
      ...chain(u("u1"), a("a1"), u("u2")),
      msg("side", "a1", user("side")),
      compaction("C", "u2", "side"),
      msg("u3", "C", user("u3")),
    ];
    const context = buildSessionContext(entries, "u3");
    expect(texts(entries, "u3")).toEqual(["SUMMARY", "u3"]);
    expect(context.firstKeptOnPath).toBe(false);
  });

  it("B24: a root compaction followed by a user message → summary, user", () => {
    const entries = chain(compaction("C", null, "nowhere"), u("u1"));
    expect(texts(entries)).toEqual(["SUMMARY", "u1"]);
  });

  it("B25: kept messages may span an earlier compaction, which contributes nothing", () => {
    const entries = chain(
      u("u1"),
      a("a1"),
      u("u2"),
      compaction("C1", null, "u2"),
      a("a2"),
      u("u3"),
      compaction("C2", null, "a1"),
      a("a3"),
    );
    const context = buildSessionContext(entries);
    expect(texts(entries)).toEqual(["SUMMARY", "a1", "u2", "a2", "u3", "a3"]);
    expect(context.messageEntryIds).toEqual(["C2", "a1", "u2", "a2", "u3", "a3"]);
  });

  it("B26: the complex tree: leaf 7 and leaf 11", () => {
    const entries = [
      msg("1", null, user("start")),
      msg("2", "1", assistant("r1")),
      msg("3", "2", user("q2")),
      msg("4", "3", assistant("r2")),
      compaction("5", "4", "3"),
      msg("6", "5", user("q3")),
      msg("7", "6", assistant("r3")),
      msg("8", "3", user("wrong approach")),
      msg("9", "8", assistant("r wrong")),
      entry("10", "3", "branch_summary", { fromId: "3", summary: "Tried the wrong approach" }),
      msg("11", "10", user("better approach")),
    ];
    expect(texts(entries, "7")).toEqual(["SUMMARY", "q2", "r2", "q3", "r3"]);
    expect(texts(entries, "11")).toEqual([
      "start",
      "r1",
      "q2",
      "Tried the wrong approach",
      "better approach",
    ]);
    const context = buildSessionContext(entries, "11");
    expect(context.messages[3]).toMatchObject({ role: "branchSummary", fromId: "3" });
    expect(context.messageEntryIds[3]).toBe("10");
  });
});

describe("entry → message (SPEC §3.3)", () => {
  it("B27: a branch summary with an empty summary produces no message", () => {
    const entries = chain(
      u("u1"),
      entry("bs", null, "branch_summary", { fromId: "u1", summary: "" }),
      u("u2"),
    );
    expect(texts(entries)).toEqual(["u1", "u2"]);
  });

  it("B28: a display:false custom message is in the context and reaches the model as user", () => {
    const entries = chain(
      u("u1"),
      entry("cm", null, "custom_message", {
        customType: "note",
        content: "hidden note",
        display: false,
        details: { k: 1 },
      }),
    );
    const context = buildSessionContext(entries);
    const timestamp = Date.parse(entries[1]?.timestamp ?? "");
    expect(context.messages[1]).toEqual({
      role: "custom",
      customType: "note",
      content: "hidden note",
      display: false,
      details: { k: 1 },
      timestamp,
    });
    expect(convertToLlm(context.messages, plainTemplates)[1]).toEqual({
      role: "user",
      content: [{ type: "text", text: "hidden note" }],
      timestamp,
    });
  });

  it("custom entries, labels, session_info and unknown types produce no message", () => {
    const entries = chain(
      u("u1"),
      entry("c", null, "custom", { customType: "x", data: {} }),
      entry("l", null, "label", { targetId: "u1", label: "L" }),
      entry("si", null, "session_info", { name: "n" }),
      entry("z", null, "something_new", { message: user("never") }),
      entry("si2", null, "session_init", { systemPrompt: "p", task: "t", tools: [] }),
    );
    expect(texts(entries)).toEqual(["u1"]);
  });
});

describe("settings from the path (SPEC §3.2)", () => {
  it("B29: TTSR rules are merged in first-seen order; mode is the last mode_change", () => {
    const entries = chain(
      entry("t1", null, "ttsr_injection", { injectedRules: ["r1", "r2"] }),
      entry("m1", null, "mode_change", { mode: "code", data: { a: 1 } }),
      entry("t2", null, "ttsr_injection", { injectedRules: ["r2", "r3"] }),
      entry("m2", null, "mode_change", { mode: "plan", data: { plan: "p.md" } }),
      u("u1"),
    );
    const context = buildSessionContext(entries);
    expect(context.injectedTtsrRules).toEqual(["r1", "r2", "r3"]);
    expect(context.mode).toBe("plan");
    expect(context.modeData).toEqual({ plan: "p.md" });
  });

  it("B30: an assistant reply overrides models.default; other roles keep the model_change", () => {
    const reply = assistant("hi", { provider: "anthropic", model: "claude-sonnet" });
    const entries = chain(
      entry("mc", null, "model_change", { model: "openai/gpt-4" }),
      entry("ms", null, "model_change", { model: "openai/gpt-4-mini", role: "smol" }),
      msg("a1", null, reply),
    );
    const context = buildSessionContext(entries);
    expect(context.models).toEqual({ default: "anthropic/claude-sonnet", smol: "openai/gpt-4-mini" });
    expect(context.model).toEqual({ provider: "anthropic", modelId: "claude-sonnet" });
    const before = buildSessionContext(entries, "ms");
    expect(before.models).toEqual({ default: "openai/gpt-4", smol: "openai/gpt-4-mini" });
    expect(before.model).toEqual({ provider: "openai", modelId: "gpt-4" });
  });

  it("thinking level: last change on the path, scanned across compactions", () => {
    const entries = chain(
      entry("t1", null, "thinking_level_change", { thinkingLevel: "high" }),
      u("u1"),
      compaction("C", null, "u1"),
      entry("t2", null, "thinking_level_change", { thinkingLevel: "low" }),
    );
    expect(buildSessionContext(entries).thinkingLevel).toBe("low");
    expect(buildSessionContext(entries, "C").thinkingLevel).toBe("high");
    expect(buildSessionContext(entries, "C").hasThinkingLevelChange).toBe(true);
    expect(buildSessionContext(chain(u("x"))).hasThinkingLevelChange).toBe(false);
  });
});
