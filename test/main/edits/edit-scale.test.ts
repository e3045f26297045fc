// Edits on a long session read what they change, not the whole session: labelling, archiving,
// editing a message and undoing a summary parse a handful of entries (labels, the edited
// message), however many entries the session holds, and still see labels, repairs and subtrees.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  closeHarness,
  createHarness,
  type Harness,
  parsesDuring,
  type SessionFile,
  turnsSession,
} from "../pipelines/harness.ts";

let h: Harness;
beforeEach(() => {
  h = createHarness();
});
afterEach(() => {
  vi.restoreAllMocks();
  closeHarness(h);
});

const TURNS = 600;

/** u0/a0 … u599/a599 and a compaction on one path, a side branch off u10, two labels on u5 (the last wins). */
function longSession(): SessionFile {
  const file = turnsSession(TURNS, (turn, i) => {
    if (i === 20) turn.add("l1", "label", { targetId: "u5", label: "first" });
    if (i === 30) turn.add("l2", "label", { targetId: "u5", label: "second" });
  });
  file.user("side-u", "another way", "u10").assistant("side-a", "tried");
  file.from(`a${TURNS - 1}`).compaction("c1", { summary: "so far", firstKeptEntryId: `u${TURNS - 2}` });
  return file;
}

describe("edits on a long session", () => {
  it("label, archive, edit and undo-summary parse a few entries, not every one", async () => {
    const sessionId = await h.importSession(longSession());
    const entryCount = (await h.snapshot(sessionId)).entryCount;
    expect(entryCount).toBeGreaterThan(2 * TURNS);
    const budget = 40;

    // The label u5 has is "second": setting it again is no change; a new one is appended.
    const same = await h.call("edits:label", { sessionId, targetId: "u5", label: "second" });
    expect(same.operation).toBeNull();
    expect(
      await parsesDuring(() => h.call("edits:label", { sessionId, targetId: "u7", label: "x" })),
    ).toBeLessThan(budget);
    expect((await h.call("session:get", { sessionId })).labels).toMatchObject({ u5: "second", u7: "x" });
    expect((await h.fail("edits:label", { sessionId, targetId: "nope", label: "x" })).code).toBe("not_found");

    expect(await parsesDuring(() => h.call("edits:archive", { sessionId, entryId: "side-u" }))).toBeLessThan(
      budget,
    );
    const tree = await h.call("session:tree", { sessionId });
    expect(
      tree.nodes
        .filter((n) => n.archived)
        .map((n) => n.id)
        .sort(),
    ).toEqual(["side-a", "side-u"]);
    // The branch holding the view leaf still needs confirmation.
    expect((await h.fail("edits:archive", { sessionId, entryId: "u300" })).code).toBe("conflict");

    let edited: string | undefined;
    expect(
      await parsesDuring(async () => {
        edited = (await h.call("edits:edit-message", { sessionId, entryId: "u42", text: "rephrased" }))
          .entryId;
      }),
    ).toBeLessThan(budget);
    const copy = (await h.call("session:get", { sessionId })).entries.find(
      (s) => s.entry.id === edited,
    )?.entry;
    expect(copy).toMatchObject({
      parentId: "a41",
      message: { role: "user", content: [{ type: "text", text: "rephrased" }] },
    });
    expect((await h.fail("edits:edit-message", { sessionId, entryId: "a3", text: "no" })).message).toContain(
      "assistant message",
    );

    expect(await parsesDuring(() => h.call("edits:undo-summary", { sessionId, entryId: "c1" }))).toBeLessThan(
      budget,
    );
    expect((await h.call("session:tree", { sessionId })).viewLeafId).toBe(`a${TURNS - 1}`);
  });
});
