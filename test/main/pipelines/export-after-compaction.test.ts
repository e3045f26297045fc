// Issue acceptance: after a Canopy compaction at a non-last leaf of tree-01, the exported JSONL is a
// valid pi v3 file whose LLM view at its last line equals Canopy's view at the compaction entry.
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildSessionContext } from "../../../core/session/context.ts";
import type { CompactionEntry } from "../../../core/session/entries.ts";
import { parseSessionText } from "../../../core/session/jsonl.ts";
import { convertToLlm } from "../../../core/session/llm-messages.ts";
import { contextTemplatesFrom, loadPromptTemplates } from "../../../prompts/index.ts";
import type { FakeServer } from "../../helpers/fake-openai-server.ts";
import { fixturePath, readExpectedContexts } from "../../helpers/fixtures.ts";
import {
  chatBody,
  chatRequests,
  createHarness,
  type Harness,
  removeDir,
  startServedHarness,
  userPrompt,
} from "./harness.ts";

let server: FakeServer;
let h: Harness;
const extra: Harness[] = [];

beforeEach(async () => {
  ({ server, h } = await startServedHarness());
});

afterEach(async () => {
  for (const harness of [h, ...extra.splice(0)]) {
    harness.close();
    removeDir(harness.dir);
  }
  await server.close();
});

/** The message entry of tree-01 (not its last line) with the longest path among the expected leaves. */
async function deepLeaf(sessionId: string): Promise<string> {
  const expected = readExpectedContexts("tree-01");
  let best = "";
  let bestLength = -1;
  for (const leaf of Object.keys(expected.contexts)) {
    if (leaf === expected.leaf) continue;
    const view = await h.call("context:get", { sessionId, leafId: leaf });
    if (view.messages.length > bestLength && view.compactionId === null) {
      best = leaf;
      bestLength = view.messages.length;
    }
  }
  return best;
}

describe("export after a Canopy compaction (tree-01)", () => {
  for (const backend of ["offline", "model"] as const) {
    it(`${backend} summarizer: pi v3 JSONL, compaction under the leaf, same LLM view`, async () => {
      if (backend === "model") await h.configureFakeModel(server);
      const source = path.join(h.dir, "tree-01.jsonl");
      fs.copyFileSync(fixturePath("tree-01.jsonl"), source);
      const sessionId = (await h.call("library:import", { path: source })).files[0]?.sessionId ?? "";
      const summary = (await h.call("session:get", { sessionId })).summary;
      expect(summary.dialect).toBe("pi");
      const leaf = await deepLeaf(sessionId);
      expect(leaf).not.toBe(summary.fileLeafId);

      const plan = await h.call("compaction:preview", { sessionId, leafId: leaf, keepRecentTokens: 300 });
      expect(plan.summarizeEntryIds.length).toBeGreaterThan(0);
      const result = await h.call("compaction:run", { sessionId, leafId: leaf, keepRecentTokens: 300 });
      expect(result.firstKeptEntryId).toBe(plan.firstKeptEntryId);
      expect(result.tokensBefore).toBe(plan.tokensBefore);
      if (backend === "model") expect(chatRequests(server).length).toBeGreaterThanOrEqual(2);
      else expect(server.requests).toHaveLength(0);
      expect((await h.snapshot(sessionId)).viewLeafId).toBe(result.entryId);
      const canopyView = await h.call("context:get", { sessionId, leafId: result.entryId });

      const exported = await h.call("session:export", {
        sessionId,
        outPath: path.join(h.dir, "out", "exported.jsonl"),
      });
      const text = fs.readFileSync(exported.path ?? "", "utf8");
      const parsed = parseSessionText(text);
      expect(parsed.header).toMatchObject({ type: "session", version: 3 });
      expect(parsed.migrated).toBe(false);
      expect(parsed.malformed).toEqual([]);
      // Lossless: every original line is unchanged, the compaction is one more line at the end.
      const original = fs.readFileSync(source, "utf8").trim().split("\n");
      const lines = text.trim().split("\n");
      expect(lines).toHaveLength(original.length + 1);
      expect(lines.slice(0, -1).map((l) => JSON.parse(l) as unknown)).toEqual(
        original.map((l) => JSON.parse(l) as unknown),
      );

      const last = parsed.entries.at(-1)?.entry as CompactionEntry;
      expect(last).toMatchObject({
        type: "compaction",
        id: result.entryId,
        parentId: leaf,
        summary: result.summary,
        firstKeptEntryId: plan.firstKeptEntryId,
        tokensBefore: plan.tokensBefore,
      });
      expect(typeof last.timestamp).toBe("string");
      expect(Number.isNaN(Date.parse(last.timestamp))).toBe(false);
      expect(last.details).toEqual({ readFiles: plan.readFiles, modifiedFiles: plan.modifiedFiles });
      // A pi file: no omp-only marker on a Canopy-generated compaction.
      expect(last.fromExtension).toBeUndefined();

      // The agent resumes at the file's last line: the LLM view built from the exported file.
      const entries = parsed.entries.map((e) => e.entry);
      const context = buildSessionContext(entries);
      expect(context.path.at(-1)?.id).toBe(result.entryId);
      const templates = contextTemplatesFrom(loadPromptTemplates());
      expect(convertToLlm(context.messages, templates)).toEqual(canopyView.messages);

      // And the same file imported into another library shows the same view at its last line.
      const other = createHarness();
      extra.push(other);
      const otherId =
        (await other.call("library:import", { path: exported.path ?? "" })).files[0]?.sessionId ?? "";
      const reimported = await other.call("context:get", { sessionId: otherId });
      expect(reimported.leafId).toBe(result.entryId);
      expect(reimported.messages).toEqual(canopyView.messages);
    });
  }

  it("a v1 file with two compactions: the third one exports as v3 and reproduces the view", async () => {
    await h.configureFakeModel(server);
    const source = path.join(h.dir, "real.jsonl");
    fs.copyFileSync(fixturePath("real-before-compaction.v1.jsonl"), source);
    const sessionId = (await h.call("library:import", { path: source })).files[0]?.sessionId ?? "";
    const plan = await h.call("compaction:preview", { sessionId });
    expect(plan.previousSummary).toBe(true);
    const result = await h.call("compaction:run", { sessionId });
    expect(plan.isSplitTurn).toBe(true);
    expect(plan.summarizeEntryIds.length).toBeGreaterThan(0);
    // The previous summary went into the update prompt (behaviour 42), the prefix call ran too.
    const requests = chatRequests(server);
    const caps = requests.map((r) => chatBody(r).max_tokens ?? 0);
    expect(caps.sort((a, b) => a - b)).toEqual([512, 8192, 13107]);
    const update = requests.find((r) => chatBody(r).max_tokens === 13107);
    expect(userPrompt(update)).toContain("<previous-summary>\n");
    const canopyView = await h.call("context:get", { sessionId });
    expect(canopyView.compactionId).toBe(result.entryId);

    const text = (await h.call("session:export", { sessionId })).text ?? "";
    const parsed = parseSessionText(text);
    expect(parsed.originalVersion).toBe(3);
    expect(parsed.malformed).toEqual([]);
    const entries = parsed.entries.map((e) => e.entry);
    expect(entries.filter((e) => e.type === "compaction")).toHaveLength(3);
    expect(entries.at(-1)).toMatchObject({ type: "compaction", id: result.entryId, parentId: plan.leafId });
    const context = buildSessionContext(entries);
    expect(convertToLlm(context.messages, contextTemplatesFrom(loadPromptTemplates()))).toEqual(
      canopyView.messages,
    );
  });
});
