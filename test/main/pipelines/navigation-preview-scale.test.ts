// The navigation preview (asked for every drop target while dragging the leaf marker) reads the
// session's structure and the target entry only: on a long session it parses a handful of entries,
// and says the same as the navigation it previews (abandoned entries, destination, editor text).
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { NavigationPreviewDto } from "../../../core/api/dto.ts";
import {
  closeHarness,
  createHarness,
  type Harness,
  parsesDuring,
  type SessionFile,
  turnsSession,
} from "./harness.ts";

let h: Harness;
beforeEach(() => {
  h = createHarness();
});
afterEach(() => {
  vi.restoreAllMocks();
  closeHarness(h);
});

const TURNS = 600;

/** A side branch off u10 first, then the main path u0/a0 … u599/a599 (the view leaf). */
function longSession(): SessionFile {
  return turnsSession(TURNS, (file, i) => {
    if (i === 10) file.user("side-u", "another way").assistant("side-a", "tried").from("a10");
  });
}

describe("navigation preview on a long session", () => {
  it("parses only the target entry and matches what navigating does", async () => {
    const sessionId = await h.importSession(longSession());
    // Assigned in the measured run below.
    let toUser!: NavigationPreviewDto;
    let toReply!: NavigationPreviewDto;
    const parsed = await parsesDuring(async () => {
      toUser = await h.call("navigation:preview", { sessionId, targetId: "side-u" });
      toReply = await h.call("navigation:preview", { sessionId, targetId: "side-a" });
    });
    expect(parsed).toBeLessThan(20);

    const abandoned = [];
    for (let i = 11; i < TURNS; i++) abandoned.push(`u${i}`, `a${i}`);
    expect(toUser).toEqual({
      sessionId,
      targetId: "side-u",
      oldLeafId: `a${TURNS - 1}`,
      commonAncestorId: "a10",
      entriesToSummarize: abandoned,
      summaryHasMessages: true,
      newLeafId: "a10",
      editorText: "another way",
    });
    expect(toReply).toMatchObject({ commonAncestorId: "a10", newLeafId: "side-a", editorText: null });
    expect((await h.fail("navigation:preview", { sessionId, targetId: "nope" })).code).toBe("not_found");

    const moved = await h.call("navigation:navigate", { sessionId, targetId: "side-u" });
    expect(moved).toMatchObject({ newLeafId: toUser.newLeafId, editorText: toUser.editorText });
  });
});
