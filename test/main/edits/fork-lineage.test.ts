// A fork's header names its parent by the source file's own session id (SPEC §1.3
// `parentSession`), the id the agents know: not the library's id of a second copy of a file
// (`<id>~<suffix>`, as tree-01.omp.jsonl gets next to tree-01.jsonl) or of a demo (`<id>~demo`).
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fixturePath } from "../../helpers/fixtures.ts";
import { createHarness, type Harness, removeDir } from "../pipelines/harness.ts";

let h: Harness;
beforeEach(() => {
  h = createHarness();
});
afterEach(() => {
  h.close();
  removeDir(h.dir);
});

async function importFixture(name: string): Promise<string> {
  return (await h.call("library:import", { path: fixturePath(name) })).files[0]?.sessionId as string;
}

describe("the parentSession of a fork", () => {
  it("is the source header's id, also for a copy the library lists under a suffixed id", async () => {
    const pi = await importFixture("tree-01.jsonl");
    const omp = await importFixture("tree-01.omp.jsonl");
    expect(omp).not.toBe(pi);
    const headerId = (await h.call("session:get", { sessionId: omp })).header.id;
    expect(headerId).toBe(pi);
    const leaf = (await h.call("session:tree", { sessionId: omp })).viewLeafId as string;
    const forkId = (await h.call("edits:fork", { sessionId: omp, entryId: leaf })).forkSessionId as string;
    const fork = await h.call("session:get", { sessionId: forkId });
    expect(fork.header.parentSession).toBe(headerId);
    const { text } = await h.call("session:export", { sessionId: forkId });
    expect(JSON.parse((text ?? "").split("\n")[0] as string).parentSession).toBe(headerId);
  });
});
