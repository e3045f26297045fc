// A fork of a session whose tool outputs Canopy pruned keeps their originals (D9): the fork's
// context shows the notices as the source's does, and `--originals` and prune --restore on the
// fork give the outputs back, as they do on the source.
import { afterEach, beforeEach, expect, it } from "vitest";
import type { ToolResultMessage } from "../../../core/session/entries.ts";
import { createHarness, type Harness, removeDir, SessionFile } from "../pipelines/harness.ts";

let h: Harness;
beforeEach(() => {
  h = createHarness();
});
afterEach(() => {
  h.close();
  removeDir(h.dir);
});

const output = (id: string) => `${id}:`.padEnd(60000, "0123456789abcdef");

function toolSession(): SessionFile {
  const file = new SessionFile().user("u1", "Run the build and show me the logs.");
  for (const id of ["t1", "t2", "t3", "t4", "t5", "t6"]) {
    file
      .assistant(`a_${id}`, "", {
        calls: [{ name: "bash", args: { command: `run ${id}` }, id: `call_${id}` }],
      })
      .toolResult(id, output(id), "bash", `call_${id}`);
  }
  return file.assistant("done", "All logs shown.");
}

const toolTexts = (messages: unknown[]) =>
  messages
    .filter((m) => (m as { role?: string }).role === "toolResult")
    .map((m) => (m as ToolResultMessage).content.map((b) => (b.type === "text" ? b.text : "")).join(""));

it("a fork of a pruned session can restore and export the original tool outputs", async () => {
  const sessionId = await h.importSession(toolSession());
  const original = toolTexts((await h.call("context:get", { sessionId })).messages);
  const pruned = await h.call("pruning:apply", { sessionId });
  expect(pruned.prunedCount).toBeGreaterThan(0);
  const prunedView = toolTexts((await h.call("context:get", { sessionId })).messages);
  expect(prunedView).not.toEqual(original);

  const { forkSessionId } = await h.call("edits:fork", { sessionId, entryId: "done" });
  const forkId = forkSessionId as string;
  // The fork sees what the source sees: the notices.
  expect(toolTexts((await h.call("context:get", { sessionId: forkId })).messages)).toEqual(prunedView);
  // Its export writes the notices, and with originals the outputs as they were.
  const exported = (await h.call("session:export", { sessionId: forkId })).text ?? "";
  expect(exported.includes("[Output truncated")).toBe(true);
  const originals = (await h.call("session:export", { sessionId: forkId, originals: true })).text ?? "";
  for (const id of ["t1", "t2"]) expect(originals.includes(output(id)), id).toBe(true);
  expect(originals.includes("prunedAt")).toBe(false);
  // Restore on the fork puts them back there, and leaves the source pruned.
  expect((await h.call("pruning:restore", { sessionId: forkId })).prunedCount).toBe(pruned.prunedCount);
  expect(toolTexts((await h.call("context:get", { sessionId: forkId })).messages)).toEqual(original);
  expect(toolTexts((await h.call("context:get", { sessionId })).messages)).toEqual(prunedView);
});
