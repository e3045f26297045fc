// Redo puts Canopy's entries back on the lines they had: what the agent appended to its file
// after the edit stays after it, so the export (its order, and its last line, where an agent
// resumes) is the same after undo + redo as before.
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { applyTreeUpdate } from "../../../core/api/tree-delta.ts";
import { computeSessionStats } from "../../../main/library/stats.ts";
import { getSessionRow } from "../../../main/store/repos/sessions.ts";
import { createHarness, type Harness, removeDir, SessionFile } from "../pipelines/harness.ts";

let h: Harness;
beforeEach(() => {
  h = createHarness();
});
afterEach(() => {
  h.close();
  removeDir(h.dir);
});

const lastLineId = (text: string) =>
  (JSON.parse(text.trimEnd().split("\n").at(-1) as string) as { id: string }).id;

it.each(["edit-message", "label"] as const)(
  "%s: undo and redo after the agent appended give back the same export",
  async (kind) => {
    const sessionId = await h.importSession(
      new SessionFile()
        .user("u1", "first")
        .assistant("a1", "one")
        .user("u2", "second")
        .assistant("a2", "two"),
      "live",
    );
    if (kind === "edit-message")
      await h.call("edits:edit-message", { sessionId, entryId: "u2", text: "again" });
    else await h.call("edits:label", { sessionId, targetId: "u1", label: "start" });
    // The agent goes on writing its file; Canopy takes the new line in.
    const line = {
      type: "message",
      id: "a3",
      parentId: "a2",
      timestamp: "2026-02-01T10:01:00.000Z",
      message: { role: "user", content: "the agent's next turn", timestamp: 1769940060000 },
    };
    fs.appendFileSync(path.join(h.dir, "live.jsonl"), `${JSON.stringify(line)}\n`);
    await h.call("library:import", { path: path.join(h.dir, "live.jsonl") });
    const before = (await h.call("session:export", { sessionId })).text ?? "";
    expect(lastLineId(before)).toBe("a3");

    expect((await h.call("edits:undo", { sessionId })).operation).toBe(kind);
    const undone = await h.call("session:tree", { sessionId });
    expect((await h.call("edits:redo", { sessionId })).operation).toBe(kind);
    // A window that had the tree before the redo gets the same tree as one that opens it now.
    const update = await h.call("session:tree-update", { sessionId, since: undone.version as string });
    const { version: _v1, ...followed } = applyTreeUpdate(undone, update);
    const { version: _v2, ...opened } = await h.call("session:tree", { sessionId });
    expect(followed).toEqual(opened);
    const after = (await h.call("session:export", { sessionId })).text ?? "";
    expect(lastLineId(after)).toBe("a3");
    expect(after).toBe(before);
    // The figures kept without a recount are the recount's.
    const row = getSessionRow(h.api.ctx.db, sessionId);
    if (!row) throw new Error("no session row");
    expect(row).toMatchObject(computeSessionStats(h.api.ctx.db, row.sid).patch);
  },
);
