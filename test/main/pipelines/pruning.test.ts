// Tool-output pruning through the API (SPEC §7 with D9, behaviour 48): preview, apply (the LLM view
// and the export show the notice), restore from the library's originals, and the §7.1 examples.
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ToolResultMessage } from "../../../core/session/entries.ts";
import { cliRecorder } from "../../helpers/cli.ts";
import { prunedEntryIds } from "../../helpers/pruned-ids.ts";
import { createHarness, type Harness, removeDir, SessionFile } from "./harness.ts";

let h: Harness;

beforeEach(() => {
  h = createHarness();
});

afterEach(() => {
  h.close();
  removeDir(h.dir);
});

const NOTICE = "[Output truncated - 15000 tokens]";

const prunedIds = (sessionId: string) => prunedEntryIds(h.api.ctx.db, sessionId);

/** Output text of `tokens` heuristic tokens, unique per tool result. */
function output(id: string, tokens: number): string {
  return `${id}:`.padEnd(tokens * 4, "0123456789abcdef");
}

/** `u1`, then per spec an assistant calling the tool and its result `t_<name>`, then a final reply. */
function toolSession(results: { id: string; tool: string; tokens: number }[]): SessionFile {
  const file = new SessionFile().user("u1", "Run the build and show me the logs.");
  for (const { id, tool, tokens } of results) {
    file
      .assistant(`a_${id}`, "", { calls: [{ name: tool, args: { command: `run ${id}` }, id: `call_${id}` }] })
      .toolResult(id, output(id, tokens), tool, `call_${id}`);
  }
  return file.assistant("done", "All logs shown.");
}

const mainResults = [
  { id: "t_read", tool: "read", tokens: 15000 },
  { id: "t_skill", tool: "skill", tokens: 15000 },
  { id: "t_bash1", tool: "bash", tokens: 15000 },
  { id: "t_bash2", tool: "bash", tokens: 15000 },
  { id: "t_bash3", tool: "bash", tokens: 15000 },
  { id: "t_bash4", tool: "bash", tokens: 15000 },
  { id: "t_bash5", tool: "bash", tokens: 15000 },
];

function toolText(message: unknown): string {
  return (message as ToolResultMessage).content
    .map((block) => (block.type === "text" ? block.text : ""))
    .join("");
}

describe("pruning pipeline", () => {
  it("previews, applies (view and export show the notice), and restores the originals", async () => {
    const file = toolSession(mainResults);
    const sessionId = await h.importSession(file);
    const before = await h.call("context:get", { sessionId });

    // The plan panel's answer: counts by tool, not each candidate.
    const preview = await h.call("pruning:preview", { sessionId });
    expect(preview).toEqual({
      sessionId,
      leafId: "done",
      candidateCount: 2,
      tools: [{ toolName: "bash", count: 2 }],
      tokensSaved: 29982,
      willPrune: true,
      alreadyPruned: 0,
      reason: null,
    });
    // Each candidate when asked for (`prune --dry-run` lists them).
    expect(await h.call("pruning:preview", { sessionId, listCandidates: true })).toEqual({
      ...preview,
      candidates: [
        { entryId: "t_bash1", toolName: "bash", tokens: 15000 },
        { entryId: "t_bash2", toolName: "bash", tokens: 15000 },
      ],
    });
    // Preview changes nothing.
    expect(await h.call("context:get", { sessionId })).toEqual(before);

    const applied = await h.call("pruning:apply", { sessionId });
    expect(applied).toEqual({
      sessionId,
      prunedCount: 2,
      tokensSaved: 29982,
    });

    const view = await h.call("context:get", { sessionId });
    const at = (id: string) => view.messages[view.messageEntryIds.indexOf(id)];
    expect(at("t_bash1")).toMatchObject({ role: "toolResult", content: [{ type: "text", text: NOTICE }] });
    expect(at("t_bash2")).toMatchObject({ role: "toolResult", content: [{ type: "text", text: NOTICE }] });
    // D9: read and skill are protected; the newest 40000 tokens too.
    for (const id of ["t_read", "t_skill", "t_bash3", "t_bash4", "t_bash5"]) {
      expect(toolText(at(id))).toBe(output(id, 15000));
    }
    expect(view.messageEntryIds).toEqual(before.messageEntryIds);
    expect(view.estimatedTokens).toBe(before.estimatedTokens - 29982);

    // The export writes what the agent expects: the notice, with prunedAt.
    const exported = await h.call("session:export", { sessionId });
    const lines = (exported.text ?? "").trim().split("\n");
    const prunedLine = JSON.parse(lines.find((line) => line.includes('"id":"t_bash1"')) ?? "{}") as {
      message: ToolResultMessage;
    };
    expect(prunedLine.message.content).toEqual([{ type: "text", text: NOTICE }]);
    expect(typeof prunedLine.message.prunedAt).toBe("number");
    expect(exported.text).not.toContain(output("t_bash1", 15000));
    expect(exported.text).toContain(output("t_bash3", 15000));

    // Nothing left to prune on that path now.
    const again = await h.call("pruning:preview", { sessionId });
    expect(again).toMatchObject({ candidateCount: 0, tools: [] });
    expect(again.willPrune).toBe(false);
    // Said as what it is: the old outputs are pruned already (not "none is old enough").
    expect(again.alreadyPruned).toBe(2);
    expect(again.reason).toBe(
      "Nothing more to prune: 2 tool outputs on this path are pruned already, and the newest 40,000 tokens are protected.",
    );
    expect((await h.call("pruning:apply", { sessionId })).prunedCount).toBe(0);

    // The originals stayed in the library: restore brings back the full outputs.
    const restored = await h.call("pruning:restore", { sessionId });
    // Counts, not every entry's id (a large session's answer was ~430 KB of ids nobody read).
    expect(restored).toEqual({ sessionId, prunedCount: 2, tokensSaved: 0 });
    expect(await h.call("context:get", { sessionId })).toEqual(before);
    const original = fs.readFileSync(path.join(h.dir, "session.jsonl"), "utf8");
    const reexported = await h.call("session:export", { sessionId });
    expect(
      (reexported.text ?? "")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as unknown),
    ).toEqual(
      original
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as unknown),
    );
    expect((await h.call("pruning:restore", { sessionId })).prunedCount).toBe(0);
  });

  it("prunes on the path of the given leaf only", async () => {
    const file = toolSession(mainResults).user("side", "A question on a side branch.", "t_bash2");
    const sessionId = await h.importSession(file);
    // The side branch's path holds bash1 and bash2 only after the protected read and skill.
    const side = await h.call("pruning:preview", { sessionId, leafId: "side" });
    expect(side).toMatchObject({ candidateCount: 0, tools: [] });
    expect(await h.call("pruning:apply", { sessionId, leafId: "done" })).toMatchObject({ prunedCount: 2 });
    expect(prunedIds(sessionId)).toEqual(["t_bash1", "t_bash2"]);
  });
});

describe("behaviour 48: the §7.1 examples (with D9: read is protected)", () => {
  const five = (tool: string) =>
    Array.from({ length: 5 }, (_, i) => ({ id: `t${i + 1}`, tool, tokens: 15000 }));
  const cases: {
    name: string;
    results: { id: string; tool: string; tokens: number }[];
    candidates: string[];
    pruned: number;
    saved: number;
    candidateSavings: number;
  }[] = [
    {
      name: "five results: the two oldest",
      results: five("bash"),
      candidates: ["t1", "t2"],
      pruned: 2,
      saved: 29982,
      candidateSavings: 29982,
    },
    {
      name: "four results: one candidate, too little to save",
      results: five("bash").slice(1),
      candidates: ["t2"],
      pruned: 0,
      saved: 0,
      candidateSavings: 14991,
    },
    {
      name: "oldest is a skill result: one candidate, too little",
      results: [{ id: "t0", tool: "skill", tokens: 15000 }, ...five("bash").slice(1)],
      candidates: ["t2"],
      pruned: 0,
      saved: 0,
      candidateSavings: 14991,
    },
    {
      name: "read 15000 and bash 25000, then three: only the bash output (read is protected)",
      results: [
        { id: "r1", tool: "read", tokens: 15000 },
        { id: "b1", tool: "bash", tokens: 25000 },
        ...five("bash").slice(2),
      ],
      candidates: ["b1"],
      pruned: 1,
      saved: 24991,
      candidateSavings: 24991,
    },
  ];
  for (const { name, results, candidates, pruned, saved, candidateSavings } of cases) {
    it(name, async () => {
      const sessionId = await h.importSession(toolSession(results));
      const preview = await h.call("pruning:preview", { sessionId, listCandidates: true });
      expect(preview.candidates?.map((c) => c.entryId)).toEqual(candidates);
      expect(preview.candidateCount).toBe(candidates.length);
      expect(preview.willPrune).toBe(pruned > 0);
      // The preview tells what pruning the candidates saves; apply prunes only past 20,000.
      expect(preview.tokensSaved).toBe(candidateSavings);
      if (pruned === 0) {
        // The reason names what the candidates would save.
        expect(preview.reason).toBe(
          `Pruning would save only ${candidateSavings} tokens (at least 20,000 are needed).`,
        );
      } else {
        expect(preview.reason).toBeNull();
      }
      const result = await h.call("pruning:apply", { sessionId });
      expect(result.prunedCount).toBe(pruned);
      expect(result.tokensSaved).toBe(saved);
    });
  }

  it("the preview counts the candidates by tool, most first, ties in path order", async () => {
    const newest = [3, 4, 5].map((i) => ({ id: `t_new${i}`, tool: "bash", tokens: 15000 }));
    const results = [
      { id: "t_edit", tool: "edit", tokens: 15000 },
      { id: "t_grep", tool: "grep", tokens: 15000 },
      { id: "t_bash1", tool: "bash", tokens: 15000 },
      { id: "t_bash2", tool: "bash", tokens: 15000 },
      ...newest,
    ];
    const sessionId = await h.importSession(toolSession(results));
    const preview = await h.call("pruning:preview", { sessionId });
    expect(preview).toMatchObject({
      candidateCount: 4,
      tools: [
        { toolName: "bash", count: 2 },
        { toolName: "edit", count: 1 },
        { toolName: "grep", count: 1 },
      ],
    });
    expect(preview).not.toHaveProperty("candidates");
  });

  it("nothing old enough: a reason, not an error", async () => {
    const sessionId = await h.importSession(toolSession(five("bash").slice(3)));
    const preview = await h.call("pruning:preview", { sessionId });
    expect(preview.candidateCount).toBe(0);
    expect(preview.reason).toMatch(/newest 40,000 tokens are protected/);
  });

  it("tool outputs the agent pruned in a rewrite of its file show pruned; restore brings the originals back", async () => {
    const sessionId = await h.importSession(toolSession(mainResults));
    const file = path.join(h.dir, "session.jsonl");
    const original = fs.readFileSync(file, "utf8");
    // The agent pruned the two oldest bash outputs (SPEC §7.1) and rewrote its file (§1.7).
    const rewritten = original
      .split("\n")
      .map((line) => {
        if (!line.includes('"id":"t_bash1"') && !line.includes('"id":"t_bash2"')) return line;
        const entry = JSON.parse(line) as { message: ToolResultMessage };
        const message = { ...entry.message, content: [{ type: "text", text: NOTICE }], prunedAt: 7 };
        return JSON.stringify({ ...entry, message });
      })
      .join("\n");
    fs.writeFileSync(file, rewritten);
    await h.call("library:import", { path: file });
    const view = await h.call("context:get", { sessionId });
    const pruned = view.messages.filter((m) => m.role === "toolResult" && toolText(m) === NOTICE);
    expect(pruned).toHaveLength(2);
    expect((await h.call("session:export", { sessionId })).text).toBe(rewritten);
    expect(prunedIds(sessionId)).toEqual(["t_bash1", "t_bash2"]);
    expect((await h.call("pruning:restore", { sessionId })).prunedCount).toBe(2);
    expect(prunedIds(sessionId)).toEqual([]);
    expect((await h.call("session:export", { sessionId })).text).toBe(original);
  });
});

describe("export of originals (D9)", () => {
  it("writes pruned tool outputs as they were with originals (API and CLI --originals), the notice without", async () => {
    const file = toolSession(mainResults);
    const sessionId = await h.importSession(file);
    await h.call("pruning:apply", { sessionId });
    const pruned = (await h.call("session:export", { sessionId })).text ?? "";
    expect(pruned).not.toContain(output("t_bash1", 15000));
    const originals = (await h.call("session:export", { sessionId, originals: true })).text ?? "";
    expect(originals).toBe(file.text());
    // The library is unchanged: the view still shows the notice.
    const view = await h.call("context:get", { sessionId });
    expect(view.messages[view.messageEntryIds.indexOf("t_bash1")]).toMatchObject({
      content: [{ type: "text", text: NOTICE }],
    });
    const out = path.join(h.dir, "exports", "originals.jsonl");
    fs.mkdirSync(path.dirname(out));
    h.close();
    const cli = cliRecorder(h.dbPath);
    expect(await cli.run("export", sessionId, "--originals", "--out", out)).toBe(0);
    expect(fs.readFileSync(out, "utf8")).toBe(file.text());
    h = createHarness({ dir: h.dir });
  });
});
