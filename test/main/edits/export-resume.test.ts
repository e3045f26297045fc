// The resume marker of an export (D14) when the view leaf is before the first entry: an agent
// loading the export resumes with the empty context Canopy shows, not at the file's last line.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { prepareCompaction } from "../../../core/compaction/prepare.ts";
import { DEFAULT_COMPACTION_SETTINGS } from "../../../core/compaction/types.ts";
import { buildSessionContext } from "../../../core/session/context.ts";
import { parseSessionText } from "../../../core/session/jsonl.ts";
import { createHarness, type Harness, removeDir, SessionFile } from "../pipelines/harness.ts";

let h: Harness;

beforeEach(() => {
  h = createHarness();
});
afterEach(() => {
  h.close();
  removeDir(h.dir);
});

describe("export resuming at the file's last entry", () => {
  it("after a compaction: no marker, so the file still ends in the compaction the agent resumes on", async () => {
    // With a marker after it, the agent's path no longer ends in a compaction: its next check
    // (before the first prompt, on the kept reply's pre-compaction usage) compacts again with
    // nothing new, keeping from the marker and dropping every message the compaction kept
    // (SPEC §5.3 E9, behaviour 40); ending in the compaction it answers "already compacted".
    const file = new SessionFile()
      .user("u1", "first question ".repeat(400))
      .assistant("a1", "first answer ".repeat(400))
      .user("u2", "second question")
      .assistant("a2", "second answer");
    const sessionId = await h.importSession(file);
    const compacted = await h.call("compaction:run", { sessionId, keepRecentTokens: 20 });
    const viewLeafId = (await h.call("session:tree", { sessionId })).viewLeafId;
    expect(viewLeafId).toBe(compacted.entryId);

    const result = await h.call("session:export", { sessionId, leafId: viewLeafId });
    const entries = parseSessionText(result.text ?? "").entries.map((e) => e.entry);
    expect(result.resumeEntryId).toBeUndefined();
    expect(entries.at(-1)).toMatchObject({ type: "compaction", id: compacted.entryId });
    expect(prepareCompaction(entries, DEFAULT_COMPACTION_SETTINGS)).toBeUndefined();
  });

  it("a leaf before the last entry still gets its marker", async () => {
    const file = new SessionFile().user("u1", "q1").assistant("a1", "r1").user("u2", "q2").assistant("a2", "r2");
    const sessionId = await h.importSession(file);
    const result = await h.call("session:export", { sessionId, leafId: "a1" });
    const entries = parseSessionText(result.text ?? "").entries.map((e) => e.entry);
    expect(entries.at(-1)).toMatchObject({ type: "custom", customType: "canopy.resume", parentId: "a1" });
    expect(result.resumeEntryId).toBe(entries.at(-1)?.id);
  });
});

describe("export resuming at an empty view leaf", () => {
  it("appends a root marker, so the agent resumes with no history", async () => {
    // A v1-style session whose first entry is the first prompt.
    const file = new SessionFile()
      .user("u1", "first question", null)
      .assistant("a1", "first answer")
      .user("u2", "second question")
      .assistant("a2", "second answer");
    const sessionId = await h.importSession(file);
    // Navigating to the first prompt (to ask it again) leaves the view leaf before everything.
    const moved = await h.call("navigation:navigate", { sessionId, targetId: "u1" });
    expect(moved.newLeafId).toBeNull();
    expect((await h.call("context:get", { sessionId })).messages).toEqual([]);

    const result = await h.call("session:export", { sessionId, leafId: null });
    expect(result.resumeEntryId).toBeDefined();
    const entries = parseSessionText(result.text ?? "").entries.map((e) => e.entry);
    const marker = entries[entries.length - 1];
    expect(marker).toMatchObject({ type: "custom", customType: "canopy.resume", parentId: null });
    expect(marker?.id).toBe(result.resumeEntryId);
    expect(buildSessionContext(entries).messages).toEqual([]);
  });
});
