// Hooks around compaction and navigation (SPEC §9.1, §9.2; behaviours 57, 59, 60–63; D11): cancel,
// hook-supplied results, validation, errors, order, session.compacting, and hook modules on disk.
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { HookEvents } from "../../../main/hooks/types.ts";
import type { FakeServer } from "../../helpers/fake-openai-server.ts";
import {
  chatRequests,
  closeServedHarness,
  conversationBlock,
  createHarness,
  type Harness,
  promptText,
  removeDir,
  SessionFile,
  startServedHarness,
  userPrompt,
} from "./harness.ts";
import { chainSession, plainHistorySerialized, plainRecentSerialized, plainSession } from "./sessions.ts";

let server: FakeServer;
let h: Harness;

beforeEach(async () => {
  ({ server, h } = await startServedHarness({ model: true, keepRecentTokens: 1500 }));
});

afterEach(() => closeServedHarness({ server, h }));

type CompactPayload = HookEvents["session_compact"]["payload"];
type TreePayload = HookEvents["session_tree"]["payload"];

function hooks() {
  return h.api.ctx.hooks;
}

async function compactionEntry(sessionId: string, entryId: string) {
  const entry = (await h.call("session:get", { sessionId })).entries.find(
    (e) => e.entry.id === entryId,
  )?.entry;
  if (entry?.type !== "compaction") throw new Error(`no compaction ${entryId}`);
  return entry;
}

describe("session_before_compact", () => {
  it("behaviour 60: cancel → cancelled 'Compaction cancelled', session_compact not fired, nothing saved", async () => {
    const sessionId = await h.importSession(plainSession());
    const before = await h.snapshot(sessionId);
    const seen: HookEvents["session_before_compact"]["payload"][] = [];
    const compacted: CompactPayload[] = [];
    hooks().register("guard", "session_before_compact", (event) => {
      seen.push(event);
      return { cancel: true };
    });
    hooks().register("guard", "session_compact", (event) => {
      compacted.push(event);
    });
    const error = await h.fail("compaction:run", { sessionId, customInstructions: "Focus" });
    expect(error).toEqual({ code: "cancelled", message: "Compaction cancelled" });
    expect(compacted).toHaveLength(0);
    expect(server.requests).toHaveLength(0);
    expect(await h.snapshot(sessionId)).toEqual(before);
    // The handler saw the plan, the active path, the instructions and the abort signal.
    expect(seen).toHaveLength(1);
    expect(seen[0]?.preparation.firstKeptEntryId).toBe("u2");
    expect(seen[0]?.branchEntries.map((e) => e.id)).toEqual(["u1", "a1", "t1", "a2", "t2", "a3", "u2", "a4"]);
    expect(seen[0]?.customInstructions).toBe("Focus");
    expect(seen[0]?.signal.aborted).toBe(false);
  });

  it("behaviour 61 / D11 (omp): a hook compaction is used verbatim with fromExtension, no HTTP", async () => {
    const sessionId = await h.importSession(plainSession({ omp: true }));
    const compacted: CompactPayload[] = [];
    let compactingCalls = 0;
    hooks().register("custom", "session_before_compact", () => ({
      compaction: {
        summary: "Custom summary from a hook",
        shortSummary: "Hook short",
        firstKeptEntryId: "a3",
        tokensBefore: 999,
        details: { note: "hook details" },
      },
    }));
    hooks().register("custom", "session.compacting", () => {
      compactingCalls += 1;
      return undefined;
    });
    hooks().register("custom", "session_compact", (event) => {
      compacted.push(event);
    });
    const result = await h.call("compaction:run", { sessionId });
    expect(server.requests).toHaveLength(0);
    expect(compactingCalls).toBe(0);
    expect(result).toMatchObject({
      summary: "Custom summary from a hook",
      shortSummary: "Hook short",
      firstKeptEntryId: "a3",
      tokensBefore: 999,
      fromExtension: true,
      viewLeafId: result.entryId,
    });
    const entry = await compactionEntry(sessionId, result.entryId);
    expect(entry).toMatchObject({
      parentId: "a4",
      summary: "Custom summary from a hook",
      firstKeptEntryId: "a3",
      tokensBefore: 999,
      details: { note: "hook details" },
      fromExtension: true,
    });
    expect(entry.fromHook).toBeUndefined();
    expect(compacted).toHaveLength(1);
    expect(compacted[0]?.fromExtension).toBe(true);
    expect(compacted[0]?.compactionEntry.id).toBe(result.entryId);
    expect((await h.call("context:get", { sessionId })).messageEntryIds).toEqual([
      result.entryId,
      "a3",
      "u2",
      "a4",
    ]);
  });

  it("D1 (pi): a hook compaction in a pi session is marked fromHook", async () => {
    const sessionId = await h.importSession(plainSession());
    hooks().register("custom", "session_before_compact", () => ({
      compaction: { summary: "Hooked", firstKeptEntryId: "u2", tokensBefore: 5 },
    }));
    const result = await h.call("compaction:run", { sessionId });
    const entry = await compactionEntry(sessionId, result.entryId);
    expect(entry.fromHook).toBe(true);
    expect(entry.fromExtension).toBeUndefined();
    expect(result.fromExtension).toBe(true);
  });

  it("D11: session_compact names the appended entry even when an earlier compaction has the same summary", async () => {
    const sessionId = await h.importSession(
      new SessionFile()
        .user("u1", "one")
        .assistant("a1", "one done")
        .compaction("c0", { summary: "Same summary", firstKeptEntryId: "u1" })
        .user("u2", "two")
        .assistant("a2", "two done"),
    );
    const compacted: CompactPayload[] = [];
    hooks().register("custom", "session_before_compact", () => ({
      compaction: { summary: "Same summary", firstKeptEntryId: "u2", tokensBefore: 10 },
    }));
    hooks().register("custom", "session_compact", (event) => {
      compacted.push(event);
    });
    const result = await h.call("compaction:run", { sessionId });
    expect(result.entryId).not.toBe("c0");
    expect(compacted.map((event) => event.compactionEntry.id)).toEqual([result.entryId]);
    expect(compacted[0]?.compactionEntry.parentId).toBe("a2");
  });

  for (const [name, firstKeptEntryId] of [
    ["an unknown id", "nope0000"],
    ["an entry on another branch", "x1"],
  ] as const) {
    it(`D11: a hook compaction keeping from ${name} is refused (invalid_input), nothing saved`, async () => {
      const sessionId = await h.importSession(plainSession().user("x1", "side branch", "a3"));
      await h.call("session:set-view-leaf", { sessionId, leafId: "a4" });
      const before = await h.snapshot(sessionId);
      const compacted: CompactPayload[] = [];
      hooks().register("custom", "session_before_compact", () => ({
        compaction: { summary: "Bad", firstKeptEntryId, tokensBefore: 1 },
      }));
      hooks().register("custom", "session_compact", (event) => {
        compacted.push(event);
      });
      const error = await h.fail("compaction:run", { sessionId });
      expect(error.code).toBe("invalid_input");
      expect(error.message).toContain(firstKeptEntryId);
      expect(compacted).toHaveLength(0);
      expect(server.requests).toHaveLength(0);
      expect(await h.snapshot(sessionId)).toEqual(before);
    });
  }

  it("behaviour 62: a throwing handler is reported and the default compaction runs", async () => {
    const sessionId = await h.importSession(plainSession({ omp: true }));
    const compacted: CompactPayload[] = [];
    hooks().register("exploding", "session_before_compact", () => {
      throw new Error("hook exploded");
    });
    hooks().register("exploding", "session_compact", (event) => {
      compacted.push(event);
    });
    server.enqueue({ type: "reply", text: "Default history." }, { type: "reply", text: "Default short." });
    const result = await h.call("compaction:run", { sessionId });
    expect(result.fromExtension).toBe(false);
    expect(result.shortSummary).toBe("Default short.");
    expect(chatRequests(server)).toHaveLength(2);
    expect((await compactionEntry(sessionId, result.entryId)).fromExtension).toBeUndefined();
    expect(compacted.map((event) => event.fromExtension)).toEqual([false]);
    const listed = await h.call("settings:hooks", {});
    expect(listed.errors).toContainEqual({
      extension: "exploding",
      event: "session_before_compact",
      message: "hook exploded",
    });
    expect(listed.handlers).toContainEqual({ extension: "exploding", event: "session_before_compact" });
  });

  it("behaviour 63: two extensions run before1, before2, after1, after2", async () => {
    const sessionId = await h.importSession(plainSession());
    const order: string[] = [];
    for (const n of [1, 2]) {
      hooks().register(`ext${n}`, "session_before_compact", () => {
        order.push(`before${n}`);
        return undefined;
      });
      hooks().register(`ext${n}`, "session_compact", () => {
        order.push(`after${n}`);
      });
    }
    await h.call("compaction:run", { sessionId });
    expect(order).toEqual(["before1", "before2", "after1", "after2"]);
  });

  it("a later truthy result replaces an earlier one; cancel stops at once", async () => {
    const sessionId = await h.importSession(plainSession());
    const order: string[] = [];
    hooks().register("ext1", "session_before_compact", () => {
      order.push("first");
      return { compaction: { summary: "From the first", firstKeptEntryId: "u2", tokensBefore: 1 } };
    });
    hooks().register("ext2", "session_before_compact", () => {
      order.push("second");
      return { compaction: { summary: "From the second", firstKeptEntryId: "u2", tokensBefore: 2 } };
    });
    expect((await h.call("compaction:run", { sessionId })).summary).toBe("From the second");

    const other = await h.importSession(plainSession(), "other");
    hooks().register("ext3", "session_before_compact", () => {
      order.push("third");
      return { cancel: true };
    });
    hooks().register("ext4", "session_before_compact", () => {
      order.push("fourth");
      return undefined;
    });
    order.length = 0;
    expect((await h.fail("compaction:run", { sessionId: other })).code).toBe("cancelled");
    expect(order).toEqual(["first", "second", "third"]);
  });
});

describe("session_compact", () => {
  it("a throwing notification handler is reported; the compaction stands", async () => {
    const sessionId = await h.importSession(plainSession());
    hooks().register("noisy", "session_compact", () => {
      throw new Error("listener failed");
    });
    const result = await h.call("compaction:run", { sessionId });
    expect((await h.snapshot(sessionId)).viewLeafId).toBe(result.entryId);
    expect((await h.call("settings:hooks", {})).errors).toEqual([
      { extension: "noisy", event: "session_compact", message: "listener failed" },
    ]);
  });
});

describe("session.compacting", () => {
  it("prompt replaces the summary prompt, context reaches both prompts, preserveData is stored", async () => {
    const sessionId = await h.importSession(plainSession());
    const seen: HookEvents["session.compacting"]["payload"][] = [];
    hooks().register("ext1", "session.compacting", () => ({ prompt: "Ignored: an earlier result" }));
    hooks().register("ext2", "session.compacting", (event) => {
      seen.push(event);
      return {
        prompt: "Summarize in one paragraph.",
        context: ["The user prefers tabs", "CI runs on Node 24"],
        preserveData: { ticket: "CAN-42" },
      };
    });
    server.enqueue({ type: "reply", text: "One paragraph." }, { type: "reply", text: "Short." });
    const result = await h.call("compaction:run", { sessionId, customInstructions: "Mention CI" });

    expect(seen).toHaveLength(1);
    expect(seen[0]?.sessionId).toBe(sessionId);
    expect(seen[0]?.messages.map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "toolResult",
      "assistant",
      "toolResult",
      "assistant",
    ]);
    const context =
      "<additional-context>\n- The user prefers tabs\n- CI runs on Node 24\n</additional-context>\n\n";
    const requests = chatRequests(server);
    expect(userPrompt(requests[0])).toBe(
      `${conversationBlock(plainHistorySerialized)}${context}Summarize in one paragraph.\n\nAdditional focus: Mention CI`,
    );
    expect(userPrompt(requests[1])).toBe(
      `${conversationBlock(plainRecentSerialized)}<previous-summary>\nOne paragraph.\n</previous-summary>\n\n${context}${promptText("compaction-short-summary")}`,
    );
    expect(result.fromExtension).toBe(false);
    expect(await compactionEntry(sessionId, result.entryId)).toMatchObject({
      preserveData: { ticket: "CAN-42" },
    });
  });
});

describe("session_before_tree", () => {
  it("behaviour 57: a hook summary is ignored when the user did not ask for one", async () => {
    const sessionId = await h.importSession(chainSession(4));
    const before = await h.snapshot(sessionId);
    const wanted: boolean[] = [];
    hooks().register("tree", "session_before_tree", (event) => {
      wanted.push(event.preparation.userWantsSummary);
      return { summary: { summary: "Unasked summary" } };
    });
    const result = await h.call("navigation:navigate", { sessionId, targetId: "a1" });
    expect(wanted).toEqual([false]);
    expect(result).toMatchObject({ cancelled: false, summaryEntryId: null, newLeafId: "a1" });
    expect(await h.snapshot(sessionId)).toEqual({ ...before, viewLeafId: "a1" });
  });

  it("behaviour 59: an empty hook summary writes nothing and navigation proceeds", async () => {
    const sessionId = await h.importSession(chainSession(4));
    const before = await h.snapshot(sessionId);
    const trees: TreePayload[] = [];
    hooks().register("tree", "session_before_tree", () => ({ summary: { summary: "" } }));
    hooks().register("tree", "session_tree", (event) => {
      trees.push(event);
    });
    const result = await h.call("navigation:navigate", { sessionId, targetId: "u2", summarize: true });
    expect(result).toMatchObject({ cancelled: false, summaryEntryId: null, newLeafId: "a1" });
    expect(result.editorText).toBe("Second question: read and change files.");
    expect(server.requests).toHaveLength(0);
    expect(await h.snapshot(sessionId)).toEqual({ ...before, viewLeafId: "a1" });
    expect(trees).toHaveLength(1);
    expect(trees[0]).toMatchObject({ newLeafId: "a1", oldLeafId: "a2" });
    expect(trees[0]?.summaryEntry).toBeUndefined();
  });

  it("a hook summary the user asked for is stored verbatim, marked, and no model is called", async () => {
    const sessionId = await h.importSession(chainSession(4, { omp: true }));
    const trees: TreePayload[] = [];
    hooks().register("tree", "session_before_tree", (event) => {
      expect(event.preparation.entriesToSummarize.map((e) => e.id)).toEqual(["u2", "a2"]);
      return { summary: { summary: "Hook branch summary", details: { from: "hook" } } };
    });
    hooks().register("tree", "session_tree", (event) => {
      trees.push(event);
    });
    const result = await h.call("navigation:navigate", { sessionId, targetId: "a1", summarize: true });
    expect(server.requests).toHaveLength(0);
    expect(result.fromExtension).toBe(true);
    const entry = (await h.call("session:get", { sessionId })).entries.at(-1)?.entry;
    expect(entry).toMatchObject({
      type: "branch_summary",
      id: result.summaryEntryId,
      parentId: "a1",
      summary: "Hook branch summary",
      details: { from: "hook" },
      fromExtension: true,
    });
    expect(trees[0]).toMatchObject({
      newLeafId: result.summaryEntryId,
      oldLeafId: "a2",
      fromExtension: true,
    });
    expect(trees[0]?.summaryEntry?.id).toBe(result.summaryEntryId);
  });

  it("a hook summary that is not text is refused like a hook's compaction (D11): nothing is saved", async () => {
    const sessionId = await h.importSession(chainSession(4));
    const before = await h.snapshot(sessionId);
    const results: unknown[] = [{ summary: 42 }, { summary: { text: "wrong field" } }, "a bare string"];
    for (const summary of results) {
      const unregister = hooks().register("tree", "session_before_tree", () => ({ summary }) as never);
      const error = await h.fail("navigation:navigate", { sessionId, targetId: "a1", summarize: true });
      expect(error.code).toBe("invalid_input");
      expect(error.message).toBe("A hook's branch summary has no summary text; nothing was saved");
      expect(await h.snapshot(sessionId)).toEqual(before);
      unregister();
    }
    expect(server.requests).toHaveLength(0);
  });

  it("cancel → cancelled, nothing changes", async () => {
    const sessionId = await h.importSession(chainSession(4));
    const before = await h.snapshot(sessionId);
    hooks().register("tree", "session_before_tree", () => ({ cancel: true }));
    const result = await h.call("navigation:navigate", { sessionId, targetId: "u1", summarize: true });
    expect(result).toMatchObject({ cancelled: true, aborted: false, summaryEntryId: null });
    expect(await h.snapshot(sessionId)).toEqual(before);
    expect(server.requests).toHaveLength(0);
  });
});

describe("hook modules in <data folder>/hooks", () => {
  it("loads *.mjs in name order, reports broken modules without failing, and uses the hooks", async () => {
    h.close();
    removeDir(h.dir);
    h = createHarness({
      loadUserHooks: true,
      prepare: (dir) => {
        const folder = path.join(dir, "hooks");
        fs.mkdirSync(folder);
        fs.writeFileSync(
          path.join(folder, "a-summary.mjs"),
          [
            "export default (canopy) => {",
            '  canopy.on("session_before_compact", (event) => ({',
            "    compaction: {",
            '      summary: "From a hook module",',
            "      firstKeptEntryId: event.preparation.firstKeptEntryId,",
            "      tokensBefore: event.preparation.tokensBefore,",
            "    },",
            "  }));",
            "};",
          ].join("\n"),
        );
        fs.writeFileSync(path.join(folder, "b-syntax.mjs"), "export default (canopy => {\n");
        fs.writeFileSync(
          path.join(folder, "c-throws.mjs"),
          'export default () => { throw new Error("no way"); };\n',
        );
        fs.writeFileSync(path.join(folder, "d-not-a-function.mjs"), "export default 42;\n");
        fs.writeFileSync(
          path.join(folder, "e-unknown-event.mjs"),
          [
            "// Registers a valid handler, then fails: the whole module must stay out.",
            "export default (canopy) => {",
            '  canopy.on("session_before_compact", () => ({ cancel: true }));',
            '  canopy.on("session_exploded", () => undefined);',
            "};",
          ].join("\n"),
        );
        fs.writeFileSync(path.join(folder, "notes.txt"), "not a module");
      },
    });
    await h.configureFakeModel(server);
    const listed = await h.call("settings:hooks", {});
    expect(listed.folder).toBe(path.join(h.dir, "hooks"));
    expect(listed.handlers).toEqual([{ extension: "a-summary.mjs", event: "session_before_compact" }]);
    expect(listed.errors.map((e) => e.extension)).toEqual([
      "b-syntax.mjs",
      "c-throws.mjs",
      "d-not-a-function.mjs",
      "e-unknown-event.mjs",
    ]);
    for (const error of listed.errors) expect(error.message).toMatch(/^could not load hook module: /);
    expect(listed.errors[1]?.message).toContain("no way");
    expect(listed.errors[3]?.message).toContain("session_exploded");

    const sessionId = await h.importSession(plainSession());
    const result = await h.call("compaction:run", { sessionId });
    expect(result.summary).toBe("From a hook module");
    expect(result.fromExtension).toBe(true);
    expect(server.requests).toHaveLength(0);
  });

  it("does not run a module every user may write, nor any from a folder of another user (a shared /tmp)", async () => {
    const marker = (dir: string) => path.join(dir, "ran.txt");
    const module = (dir: string) =>
      `import fs from "node:fs";\nfs.writeFileSync(${JSON.stringify(marker(dir))}, "ran");\nexport default () => {};\n`;
    h.close();
    removeDir(h.dir);
    h = createHarness({
      loadUserHooks: true,
      prepare: (dir) => {
        const folder = path.join(dir, "hooks");
        fs.mkdirSync(folder);
        fs.writeFileSync(path.join(folder, "planted.mjs"), module(dir));
        fs.chmodSync(path.join(folder, "planted.mjs"), 0o666);
      },
    });
    let listed = await h.call("settings:hooks", {});
    expect(listed.errors).toEqual([
      {
        extension: "planted.mjs",
        event: "load",
        message: "could not load hook module: not run: every user may write to it",
      },
    ]);
    expect(fs.existsSync(marker(h.dir))).toBe(false);

    // Changing a file's owner needs root (as in CI); elsewhere the part above is the check.
    if (process.getuid?.() !== 0) return;
    h.close();
    removeDir(h.dir);
    h = createHarness({
      loadUserHooks: true,
      prepare: (dir) => {
        const folder = path.join(dir, "hooks");
        fs.mkdirSync(folder);
        fs.writeFileSync(path.join(folder, "planted.mjs"), module(dir));
        fs.chownSync(folder, 65534, 65534);
      },
    });
    listed = await h.call("settings:hooks", {});
    expect(listed.errors).toEqual([
      {
        extension: "hooks",
        event: "load",
        message: `hook modules in ${path.join(h.dir, "hooks")} were not loaded: it belongs to another user (uid 65534)`,
      },
    ]);
    expect(fs.existsSync(marker(h.dir))).toBe(false);
  });
});
