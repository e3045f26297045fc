// A parentId that is neither an entry id nor null (a number, an object, none at all) is listed
// with the session's problems, on its line and in file order, however the file came in: a new
// import (parsed in place, or on the import thread for a large file), a file that grew, an edit
// (which recomputes the figures from the stored rows). The entry stays a root, as the agents'
// walks make it, its line is exported unchanged, and `canopy show` lists it under the title.
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { inFileOrder } from "../../../core/session/problems.ts";
import { exportSession } from "../../../main/library/export.ts";
import { importPath } from "../../../main/library/import.ts";
import { getSessionDetail, getSessionSummary } from "../../../main/library/load.ts";
import { PARALLEL_PARSE_MIN_BYTES } from "../../../main/library/parallel-rows.ts";
import { runCliCaptured } from "../../helpers/cli.ts";
import { type Library, makeLibrary } from "./helpers.ts";

process.env.CANOPY_NO_DEMO = "1";

let lib: Library;
beforeEach(() => {
  lib = makeLibrary();
});
afterEach(() => lib.cleanup());

const at = "2026-12-01T00:00:00.000Z";
const line = (fields: Record<string, unknown>, text: string) =>
  JSON.stringify({
    type: "message",
    ...fields,
    timestamp: at,
    message: { role: "user", content: [{ type: "text", text }], timestamp: 1 },
  });

/** Lines 2–9 of the file: the odd parentIds on lines 4, 5 and 8. */
const BODY = [
  line({ id: "a1", parentId: null }, "hello"),
  line({ id: "a2", parentId: "a1" }, "hi"),
  line({ id: "a3", parentId: 5 }, "numeric parent"),
  line({ id: "a4", parentId: { id: "a2" } }, "object parent"),
  line({ id: "a5", parentId: "zz" }, "orphan"),
  line({ id: "a6", parentId: "a4" }, "below the object parent"),
  line({ id: "a7" }, "no parentId"),
  "{not json",
];

const EXPECTED = [
  "line 4: Entry a3 has parentId 5 (a number), not an entry id or null: treated as a root, as the agents do",
  'line 5: Entry a4 has parentId {"id":"a2"} (an object), not an entry id or null: treated as a root, as the agents do',
  "line 6: Entry a5 has unknown parent zz: treated as a root",
  "line 8: Entry a7 has no parentId (an entry id, or null for a root): treated as a root, as the agents do",
  expect.stringMatching(/^line 9: invalid JSON: /),
];

function writeSession(id: string, body: readonly string[]): string {
  const file = path.join(lib.dir, `${id}.jsonl`);
  const header = JSON.stringify({ type: "session", version: 3, id, timestamp: at, cwd: "/w" });
  fs.writeFileSync(file, `${[header, ...body].join("\n")}\n`);
  return file;
}

/** The session's problems as `canopy show` lists them under its title ("line N: …"). */
async function shownProblems(sessionId: string, db: string): Promise<string[]> {
  const run = await runCliCaptured(["show", sessionId, "--db", db]);
  expect(run.code).toBe(0);
  const lines = run.out.trimEnd().split("\n");
  const heading = lines.findIndex((l) => /^\d+ problems?:$/.test(l));
  expect(heading).toBeGreaterThan(0);
  return lines.slice(heading + 1).map((l) => l.replace(/^ {2}! /, ""));
}

describe("a parentId that is neither an entry id nor null", () => {
  it("is listed on its line in file order, in the import report, the stored problems and `canopy show`", async () => {
    const file = writeSession("odd-parents", BODY);
    const report = importPath(lib.db, file);
    const texts = (problems: readonly { line?: number; message: string }[]) =>
      inFileOrder(problems).map((p) => `line ${p.line}: ${p.message}`);
    expect(texts(report.files[0]?.problems ?? [])).toEqual(EXPECTED);
    expect(getSessionSummary(lib.db, "odd-parents").problemCount).toBe(4);
    expect(inFileOrder(getSessionDetail(lib.db, "odd-parents").problems).map((p) => p.kind)).toEqual([
      "invalid_parent",
      "invalid_parent",
      "orphan",
      "invalid_parent",
    ]);
    const show = await runCliCaptured(["show", "odd-parents", "--db", lib.dbFile]);
    expect(show.out).toContain("\n5 problems:\n");
    expect(await shownProblems("odd-parents", lib.dbFile)).toEqual(EXPECTED);
    // Each is a root of its own (the view leaf's, a7, first; then file order); a6 stays below a4,
    // as the agents' walk has it.
    const roots = show.out.split("\n").filter((l) => /^[*> ] ├─/.test(l));
    expect(roots.map((l) => /├─(\S+)/.exec(l)?.[1])).toEqual(["a7", "a1", "a3", "a4", "a5"]);
    expect(show.out).toMatch(/├─a4 user object parent\n[*> ] │ a6 user below the object parent\n/);
    // Nothing lost: the export is the file.
    expect(exportSession(lib.db, "odd-parents").text).toBe(fs.readFileSync(file, "utf8"));
    // The LLM view below it starts at it.
    const context = await runCliCaptured([
      "context",
      "odd-parents",
      "--leaf",
      "a6",
      "--json",
      "--db",
      lib.dbFile,
    ]);
    const messages = JSON.parse(context.out) as { content: { text: string }[] }[];
    expect(messages.map((m) => m.content[0]?.text)).toEqual(["object parent", "below the object parent"]);
  });

  it("stays listed when the file grows and after an edit (figures recomputed from the stored rows)", async () => {
    const file = writeSession("grown", BODY.slice(0, 7));
    importPath(lib.db, file);
    fs.appendFileSync(file, `${line({ id: "a8", parentId: [1] }, "array parent")}\n`);
    const grown = importPath(lib.db, file);
    expect(grown.files[0]?.status).toBe("updated");
    const afterGrowth = [
      ...EXPECTED.slice(0, 4),
      "line 9: Entry a8 has parentId [1] (an array), not an entry id or null: treated as a root, as the agents do",
    ];
    expect(await shownProblems("grown", lib.dbFile)).toEqual(afterGrowth);
    const label = await runCliCaptured(["label", "grown", "a2", "checked", "--db", lib.dbFile]);
    expect(label.code).toBe(0);
    expect(await shownProblems("grown", lib.dbFile)).toEqual(afterGrowth);
  });

  it("is listed for a large file parsed on the import thread", () => {
    const filler = "x".repeat(4000);
    const body = [line({ id: "b0", parentId: null }, filler), line({ id: "odd", parentId: 42 }, "odd")];
    let size = 0;
    for (let i = 1; size < PARALLEL_PARSE_MIN_BYTES + 100_000; i++) {
      const next = line({ id: `b${i}`, parentId: `b${i - 1}` }, filler);
      body.push(next);
      size += next.length;
    }
    const file = writeSession("large", body);
    const report = importPath(lib.db, file);
    expect(report.files[0]?.status).toBe("imported");
    expect(report.files[0]?.problems.map((p) => [p.kind, p.line, p.entryId])).toEqual([
      ["invalid_parent", 3, "odd"],
    ]);
    expect(getSessionSummary(lib.db, "large").problemCount).toBe(1);
  });
});
