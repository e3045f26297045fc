// The CLI's progress line on a terminal: a folder import shows the file it is at and how far it
// is, a compaction how much summary has been written; the line is cleared before the command's
// output, so the output starts on a line of its own. Nothing is shown when stderr is no terminal.
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../main/cli.ts";
import { fixturePath } from "../helpers/fixtures.ts";

process.env.CANOPY_NO_DEMO = "1";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "canopy-cli-progress-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs a command with stderr taken for a terminal (or not); every write in order. */
async function run(isTerminal: boolean, ...args: string[]): Promise<[kind: string, text: string][]> {
  const writes: [string, string][] = [];
  await runCli([...args, "--db", path.join(dir, "library.db")], {
    out: (text) => writes.push(["out", text]),
    err: (text) => writes.push(["err", text]),
    progress: (text) => writes.push(["progress", text]),
    isTerminal,
  });
  return writes;
}

describe("the progress line", () => {
  it("a folder import shows its file and count, then clears the line before the report", async () => {
    const folder = mkdtempSync(path.join(dir, "folder-"));
    for (const name of ["tree-00.jsonl", "tree-02.jsonl"])
      copyFileSync(fixturePath(name), path.join(folder, name));
    const writes = await run(true, "import", folder);
    const progress = writes.filter(([kind]) => kind === "progress").map(([, text]) => text);
    expect(progress[0]).toBe(`Importing ${path.basename(folder)}…`);
    // Later lines come at most every 50 ms: the files' lines may be skipped for a quick import.
    for (const line of progress.slice(1, -1))
      expect(line).toMatch(/^Importing tree-0[02]\.jsonl \([12]\/2\)$/);
    expect(progress.at(-1)).toBe("");
    const cleared = writes.findIndex(([kind, text]) => kind === "progress" && text === "");
    const report = writes.findIndex(([kind]) => kind === "out");
    expect(cleared).toBeGreaterThanOrEqual(0);
    expect(cleared).toBeLessThan(report);
  });

  it("a compaction shows the summary being written, then clears the line before its result", async () => {
    const writes = await run(true, "compact", fixturePath("tree-03.jsonl"));
    const progress = writes.filter(([kind]) => kind === "progress").map(([, text]) => text);
    expect(progress[0]).toMatch(/^Summarizing: \d+ characters$/);
    expect(progress.at(-1)).toBe("");
    expect(writes.at(-1)?.[0]).toBe("out");
    expect(writes.at(-1)?.[1]).toMatch(/^Compacted: entry /);
  });

  it("shows nothing when stderr is not a terminal", async () => {
    const folder = mkdtempSync(path.join(dir, "quiet-"));
    copyFileSync(fixturePath("tree-01.jsonl"), path.join(folder, "a.jsonl"));
    const writes = await run(false, "import", folder);
    expect(writes.filter(([kind]) => kind === "progress")).toEqual([]);
  });
});
