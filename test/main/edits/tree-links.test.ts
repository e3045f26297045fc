// Canopy's edits and exports write files whose every parentId resolves: a fork drops the path's
// label entries without orphaning what hung below them, and an export without archived branches
// keeps what the kept entries hang from. Checked on small sessions built for the case.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SessionEntry } from "../../../core/session/entries.ts";
import { parseSessionText } from "../../../core/session/jsonl.ts";
import { buildSessionContext } from "../../../core/session/context.ts";
import { createHarness, type Harness, removeDir, SessionFile } from "../pipelines/harness.ts";

let h: Harness;

beforeEach(() => {
  h = createHarness();
});
afterEach(() => {
  h.close();
  removeDir(h.dir);
});

/** Ids that some entry names as parent but that no entry of the list has. */
function danglingParents(entries: readonly SessionEntry[]): string[] {
  const ids = new Set(entries.map((e) => e.id));
  return entries.flatMap((e) => (typeof e.parentId === "string" && !ids.has(e.parentId) ? [e.parentId] : []));
}

function exportedEntries(text: string | undefined): SessionEntry[] {
  return parseSessionText(text ?? "").entries.map((e) => e.entry);
}

describe("fork", () => {
  it("keeps the entries below a label entry of the path attached, so the fork's context is the source's", async () => {
    // The agent labels from its leaf: the label entry sits on the path, the next message below it.
    const file = new SessionFile()
      .add("tl1", "thinking_level_change", { thinkingLevel: "high" })
      .user("u1", "first question")
      .assistant("a1", "first answer")
      .add("lab1", "label", { targetId: "u1", label: "start" })
      .user("u2", "second question")
      .assistant("a2", "second answer");
    const sessionId = await h.importSession(file);
    const { forkSessionId } = await h.call("edits:fork", { sessionId, entryId: "a2" });
    const fork = await h.call("session:get", { sessionId: forkSessionId as string });
    const entries = fork.entries.map((s) => s.entry);
    expect(fork.problems).toEqual([]);
    expect(danglingParents(entries)).toEqual([]);
    expect(entries.find((e) => e.id === "u2")?.parentId).toBe("a1");
    expect(fork.labels).toEqual({ u1: "start" });
    const forkView = await h.call("context:get", { sessionId: forkSessionId as string });
    const sourceView = await h.call("context:get", { sessionId, leafId: "a2" });
    expect(forkView.messages).toEqual(sourceView.messages);
    expect(forkView.thinkingLevel).toBe("high");
    // The export an agent loads: its context at the last line holds all four messages.
    const exported = exportedEntries(
      (await h.call("session:export", { sessionId: forkSessionId as string })).text,
    );
    expect(danglingParents(exported)).toEqual([]);
    expect(buildSessionContext(exported).messages.map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "user",
      "assistant",
    ]);
  });
});

describe("fork of a compacted path", () => {
  it("keeps what a compaction kept when its first kept entry was a label entry of the path", async () => {
    // The cut point pulls metadata in front of a user message into the kept region (SPEC §5.2
    // step 5), so an agent label entry can be a compaction's firstKeptEntryId.
    const file = new SessionFile()
      .user("u1", "first question")
      .assistant("a1", "first answer")
      .add("lab1", "label", { targetId: "u1", label: "start" })
      .user("u2", "second question")
      .assistant("a2", "second answer")
      .compaction("c1", { summary: "The first question was answered.", firstKeptEntryId: "lab1" })
      .user("u3", "third question")
      .assistant("a3", "third answer");
    const sessionId = await h.importSession(file);
    const { forkSessionId } = await h.call("edits:fork", { sessionId, entryId: "a3" });
    const forkView = await h.call("context:get", { sessionId: forkSessionId as string });
    const sourceView = await h.call("context:get", { sessionId, leafId: "a3" });
    expect(sourceView.messageEntryIds).toEqual(["c1", "u2", "a2", "u3", "a3"]);
    expect(forkView.messages).toEqual(sourceView.messages);
    const exported = exportedEntries(
      (await h.call("session:export", { sessionId: forkSessionId as string })).text,
    );
    expect(buildSessionContext(exported).messages).toEqual(sourceView.agentMessages);
  });
});

describe("export without archived branches", () => {
  it("keeps a label entry of an archived entry when kept entries hang below it", async () => {
    // The agent labelled an entry of the side branch from the main branch's leaf: the label entry
    // is on the main path and the next message hangs from it.
    const file = new SessionFile()
      .add("tl1", "thinking_level_change", { thinkingLevel: "high" })
      .user("u1", "first question")
      .assistant("a1", "first answer")
      .user("ux", "side question")
      .assistant("ax", "side answer")
      .from("a1")
      .add("lab1", "label", { targetId: "ax", label: "side" })
      .user("u2", "second question")
      .assistant("a2", "second answer");
    const sessionId = await h.importSession(file);
    await h.call("edits:archive", { sessionId, entryId: "ux" });
    const view = await h.call("context:get", { sessionId, leafId: "a2" });
    for (const leafId of [undefined, "a2"]) {
      const { text } = await h.call("session:export", {
        sessionId,
        withoutArchived: true,
        ...(leafId ? { leafId } : {}),
      });
      const exported = exportedEntries(text);
      expect(exported.map((e) => e.id)).not.toContain("ux");
      expect(exported.map((e) => e.id)).not.toContain("ax");
      expect(danglingParents(exported)).toEqual([]);
      const context = buildSessionContext(exported);
      expect(context.messages).toEqual(view.agentMessages);
      expect(context.thinkingLevel).toBe("high");
    }
  });

  it("keeps a label set on a kept entry while the file's last entry was in the archived branch", async () => {
    const file = new SessionFile()
      .user("u1", "first question")
      .assistant("a1", "first answer")
      .user("u2", "second question")
      .assistant("a2", "second answer")
      .from("a1")
      .user("ux", "side question")
      .assistant("ax", "side answer");
    const sessionId = await h.importSession(file);
    await h.call("session:set-view-leaf", { sessionId, leafId: "a2" });
    await h.call("edits:label", { sessionId, targetId: "u2", label: "keep me" });
    await h.call("edits:archive", { sessionId, entryId: "ux" });
    const { text } = await h.call("session:export", { sessionId, withoutArchived: true, leafId: "a2" });
    const exported = exportedEntries(text);
    expect(exported.map((e) => e.id)).not.toContain("ax");
    expect(danglingParents(exported)).toEqual([]);
    const labels = exported.filter((e) => e.type === "label");
    expect(labels.map((e) => [e.targetId, e.label])).toEqual([["u2", "keep me"]]);
    // Hung from the archived branch's kept ancestor: the agent resumes where the marker says.
    expect(labels[0]?.parentId).toBe("a1");
    const context = buildSessionContext(exported);
    expect(context.messages).toEqual(
      (await h.call("context:get", { sessionId, leafId: "a2" })).agentMessages,
    );
  });
});
