// `canopy show`'s first line names the session on one line, whatever the title's line breaks: a
// compaction's short summary (the title of a session without one, SPEC §10.3) is often several
// lines — a model's "## Goal\n…" — and an agent's header title or a rename can hold them too.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cliRecorder } from "../helpers/cli.ts";

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "canopy-show-title-"));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const ID = "0195f0c2-3333-7000-8000-0000000000a1";
const T = "2026-02-01T10:00:00.000Z";
const lines = [
  { type: "session", version: 3, id: ID, timestamp: T, cwd: "/work/title" },
  { type: "message", id: "u1", parentId: null, timestamp: T, message: { role: "user", content: "Fix the parser", timestamp: 1 } },
  {
    type: "compaction",
    id: "c1",
    parentId: "u1",
    timestamp: T,
    summary: "S",
    firstKeptEntryId: "u1",
    tokensBefore: 10,
    shortSummary: "## Goal\nI fixed the parser.\n\n## Progress\n- done",
  },
];

describe("show's header line", () => {
  it("folds a multi-line title (a compaction's short summary) onto the first line", async () => {
    const file = path.join(dir, "s.jsonl");
    fs.writeFileSync(file, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
    const cli = cliRecorder(path.join(dir, "library.db"));
    expect(await cli.run("import", file)).toBe(0);
    cli.out.length = 0;
    expect(await cli.run("show", ID)).toBe(0);
    const shown = cli.out.join("\n").split("\n");
    expect(shown[0]).toBe(`${ID}  ## Goal I fixed the parser. ## Progress - done`);
    expect(shown[1]).toMatch(/^cwd \/work\/title · /);
  });

  it("folds a renamed title with line breaks the same way", async () => {
    const file = path.join(dir, "s.jsonl");
    fs.writeFileSync(file, `${lines.slice(0, 2).map((line) => JSON.stringify(line)).join("\n")}\n`);
    const cli = cliRecorder(path.join(dir, "library.db"));
    expect(await cli.run("import", file)).toBe(0);
    expect(await cli.run("rename", ID, "Parser\nwork")).toBe(0);
    cli.out.length = 0;
    expect(await cli.run("show", ID)).toBe(0);
    expect(cli.out.join("\n").split("\n")[0]).toBe(`${ID}  Parser work`);
  });
});
