// What the library list says of each session's file (fileState) and library:keep-copy: a file
// gone or no longer a session file marks its session in the list; keeping the copy of a session
// whose file is gone ends its "file gone" problem, keeps every entry and survives a reopen; it is
// refused while the file is there.
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SessionSummary } from "../../../core/api/dto.ts";
import { unfollowedFiles } from "../../../main/library/unfollowed-files.ts";
import { createHarness, type Harness, removeDir, SessionFile } from "../pipelines/harness.ts";

let h: Harness;
beforeEach(() => {
  h = createHarness();
});
afterEach(() => {
  h.close();
  removeDir(h.dir);
});

const listed = async (sessionId: string): Promise<SessionSummary | undefined> =>
  (await h.call("library:list", {})).find((session) => session.id === sessionId);

describe("fileState in the library list", () => {
  it("is absent for a file that is fine, and says gone or not_a_session otherwise", async () => {
    const a = await h.importSession(new SessionFile({ id: "states-a" }).user("u1", "hello"), "a");
    const b = await h.importSession(new SessionFile({ id: "states-b" }).user("u1", "hi"), "b");
    expect((await listed(a))?.fileState).toBeUndefined();
    fs.rmSync(path.join(h.dir, "a.jsonl"));
    unfollowedFiles(h.api.ctx.db).set(path.join(h.dir, "b.jsonl"), "the file is empty");
    expect((await listed(a))?.fileState).toBe("gone");
    expect((await listed(b))?.fileState).toBe("not_a_session");
  });
});

describe("library:keep-copy", () => {
  it("ends the file-gone problem of a session whose file is gone, and keeps it", async () => {
    const file = new SessionFile({ id: "keep-a" }).user("u1", "hello").assistant("a1", "hi");
    const id = await h.importSession(file, "k");
    const conflict = await h.fail("library:keep-copy", { sessionId: id });
    expect(conflict.code).toBe("conflict");

    fs.rmSync(path.join(h.dir, "k.jsonl"));
    const before = await h.call("session:tree", { sessionId: id });
    expect(before.problems.map((problem) => problem.kind)).toEqual(["file_missing"]);
    const kept = await h.call("library:keep-copy", { sessionId: id });
    expect(kept.fileState).toBe("kept");
    expect((await h.call("session:tree", { sessionId: id })).problems).toEqual([]);
    expect((await listed(id))?.fileState).toBe("kept");
    expect((await listed(id))?.entryCount).toBe(before.nodes.length);

    // Reopened (a new process on the same library): still kept.
    h.close();
    h = createHarness({ dir: h.dir });
    expect((await listed(id))?.fileState).toBe("kept");
  });
});
