// The resume marker of an export (D14) when the view leaf is before the first entry: an agent
// loading the export resumes with the empty context Canopy shows, not at the file's last line.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
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
