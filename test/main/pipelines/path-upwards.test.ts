// A compaction run plans on the leaf's path walked upwards through the id index as far as its
// window needs (path-upwards.ts), not on every link of the session: on a long session it reads a
// few rows per entry of the window, and the path it walks is the one loadPathLinks gives, also
// where a walk goes on long enough to list the session's links instead.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { generateSession } from "../../../bench/generate-session.ts";
import { buildTreeIndex } from "../../../core/session/tree.ts";
import { loadSessionEntries } from "../../../main/library/load.ts";
import { openPathUpwards } from "../../../main/pipelines/path-upwards.ts";
import { loadPathLinks } from "../../../main/pipelines/session-state.ts";
import { createHarness, type Harness, importText, readsDuring, removeDir, SessionFile } from "./harness.ts";

let h: Harness;
beforeEach(() => {
  h = createHarness();
});
afterEach(() => {
  vi.restoreAllMocks();
  h.close();
  removeDir(h.dir);
});

describe("a compaction run on a long session", () => {
  it("reads the rows of its window, not every link of the session", async () => {
    const TURNS = 1500;
    const file = new SessionFile();
    for (let i = 0; i < TURNS; i++) {
      file.user(`u${i}`, `question ${i} `.repeat(20)).assistant(`a${i}`, `answer ${i} `.repeat(20));
      if (i === TURNS - 11)
        file.add("c1", "compaction", {
          summary: "Earlier.",
          firstKeptEntryId: `u${i - 4}`,
          tokensBefore: 9000,
        });
    }
    const sessionId = await importText(h, file.text(), "long");
    const { db } = h.api.ctx;
    const preview = (await readsDuring(db, () => h.call("compaction:preview", { sessionId }))).rows;
    const run = (await readsDuring(db, () => h.call("compaction:run", { sessionId }))).rows;
    // The window is ~30 entries; listing the links read all 3,001 rows.
    expect(preview).toBeLessThan(300);
    expect(run).toBeLessThan(300);
    expect((await h.call("session:get", { sessionId })).entries.at(-1)?.entry).toMatchObject({
      type: "compaction",
      firstKeptEntryId: expect.any(String),
    });
  });
});

describe("the path walked upwards is the path of the links", () => {
  const sessions = [
    [
      "generated, compactions every few hundred entries",
      generateSession(3000, { compactAtTokens: 30_000, keepRecentTokens: 6_000 }).text,
    ],
    // No compaction: a walk to the root, past the point where the links are listed whole.
    ["generated, no compaction", generateSession(6000, { compactAtTokens: 10_000_000 }).text],
  ] as const;

  it.each(sessions)("%s: every leaf", async (name, text) => {
    const sessionId = await importText(h, text, "generated");
    const { db } = h.api.ctx;
    const tips = buildTreeIndex(loadSessionEntries(db, sessionId)).tips();
    let longest = 0;
    for (const leaf of tips) {
      const links = loadPathLinks(db, sessionId, leaf.id);
      const expected = links?.up.map((position) => links.links[position]);
      const opened = openPathUpwards(db, sessionId, leaf.id);
      const walked: unknown[] = [];
      for (let u = 0, link = opened?.up.at(0); link !== undefined; link = opened?.up.at(++u))
        walked.push(link);
      expect(walked, `${name} ${leaf.id}`).toEqual(expected);
      expect(opened?.up.length).toBe(walked.length);
      longest = Math.max(longest, walked.length);
    }
    if (name.includes("no compaction")) expect(longest).toBeGreaterThan(2048);
  });

  it("the null leaf, an unknown leaf, a session with tree problems", async () => {
    const sessionId = await h.importSession(new SessionFile().user("u1", "q").assistant("a1", "r"));
    const { db } = h.api.ctx;
    expect(openPathUpwards(db, sessionId, null)?.up.length).toBe(0);
    expect(() => openPathUpwards(db, sessionId, "nope")).toThrow(`Session ${sessionId} has no entry nope`);
    const broken = await h.importSession(
      new SessionFile().user("u1", "q").assistant("a1", "r", { parentId: "missing" }),
      "broken",
    );
    expect(openPathUpwards(db, broken, "a1")).toBeNull();
  });
});
