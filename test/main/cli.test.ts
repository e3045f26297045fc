// The `canopy` CLI on the shared fixtures: the LLM view of every expected leaf through
// `context --json`, `show`, `export`, `search`, and one-line errors with non-zero exits.
import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliRun, runCliCaptured } from "../helpers/cli.ts";
import { fixturePath, readExpectedContexts, repoRoot, withoutSummaryFraming } from "../helpers/fixtures.ts";

process.env.CANOPY_NO_DEMO = "1";

function cli(...args: string[]): Promise<CliRun> {
  return runCliCaptured(args);
}

let dir: string;
let db: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "canopy-cli-"));
  db = path.join(dir, "library.db");
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("canopy context --json", () => {
  for (const tree of ["tree-00", "tree-01", "tree-02", "tree-03"]) {
    it(`${tree}: equals the agent's own message list at every expected leaf`, async () => {
      const expected = readExpectedContexts(tree);
      const file = fixturePath(`${tree}.jsonl`);
      const leaves = Object.keys(expected.contexts);
      expect(leaves.length).toBe(30);
      for (const leaf of leaves) {
        const run = await cli("context", file, "--leaf", leaf, "--json", "--db", db);
        expect(run.err).toBe("");
        expect(run.code).toBe(0);
        const got = JSON.parse(run.out) as unknown[];
        const want = expected.contexts[leaf]?.messages ?? [];
        expect(got.map(withoutSummaryFraming), `${tree} leaf ${leaf}`).toEqual(
          want.map(withoutSummaryFraming),
        );
      }
    });
  }

  it("tree-01.omp.jsonl gives the same LLM view as tree-01.jsonl", async () => {
    const expected = readExpectedContexts("tree-01");
    for (const leaf of Object.keys(expected.contexts)) {
      const pi = await cli("context", fixturePath("tree-01.jsonl"), "--leaf", leaf, "--json", "--db", db);
      const omp = await cli(
        "context",
        fixturePath("tree-01.omp.jsonl"),
        "--leaf",
        leaf,
        "--json",
        "--db",
        db,
      );
      expect(omp.code).toBe(0);
      expect(JSON.parse(omp.out)).toEqual(JSON.parse(pi.out));
    }
  });

  it("defaults to the view leaf, which is the file's last entry after import", async () => {
    const expected = readExpectedContexts("tree-00");
    const run = await cli("context", fixturePath("tree-00.jsonl"), "--json", "--db", db);
    const want = expected.contexts[expected.leaf]?.messages ?? [];
    expect((JSON.parse(run.out) as unknown[]).map(withoutSummaryFraming)).toEqual(
      want.map(withoutSummaryFraming),
    );
  });

  it("prints a readable LLM view without --json", async () => {
    const run = await cli("context", fixturePath("tree-00.jsonl"), "--db", db);
    expect(run.code).toBe(0);
    expect(run.out).toMatch(/^leaf \w+ · \d+ messages · ~\d+ tokens estimated/);
    expect(run.out).toContain("── [1] user");
    expect(run.out).toContain("<summary>");
  });
});

describe("canopy show", () => {
  it("marks the view leaf, the compactions and each compaction's first kept entry", async () => {
    const run = await cli("show", fixturePath("tree-00.jsonl"), "--db", db);
    expect(run.code).toBe(0);
    const lines = run.out.split("\n");
    const entryCount = readFileSync(fixturePath("tree-00.jsonl"), "utf8").trim().split("\n").length - 1;
    expect(lines.filter((line) => /^[*> ] [ │├─]*[0-9a-f]{8} /.test(line))).toHaveLength(entryCount);
    const leaf = readExpectedContexts("tree-00").leaf;
    expect(lines.find((line) => line.startsWith("*"))).toContain(leaf);
    const compaction = lines.find((line) =>
      line.includes("[compaction: tokensBefore 93, first kept 8d6ed8e9]"),
    );
    expect(compaction).toBeDefined();
    expect(lines.find((line) => line.includes("8d6ed8e9 model_change"))).toContain(
      "[first kept by 6a0b3345]",
    );
  });
});

describe("canopy import, list, export, search", () => {
  it("lists a file's problems in line order, malformed lines included, each line number once", async () => {
    // Inside the suite's folder, removed after all tests.
    const folder = mkdtempSync(path.join(dir, "problems-"));
    const header = {
      type: "session",
      version: 3,
      id: "problems-1",
      timestamp: "2026-01-01T00:00:00Z",
      cwd: "/x",
    };
    const user = (id: string, parentId: string | null) => ({
      type: "message",
      id,
      parentId,
      timestamp: "2026-01-01T00:00:01Z",
      message: { role: "user", content: "hi" },
    });
    const lines = [header, user("a1", null), "{broken", user("a2", "a3"), user("a3", "a2"), user("a1", null)];
    const file = path.join(folder, "s.jsonl");
    writeFileSync(file, `${lines.map((l) => (typeof l === "string" ? l : JSON.stringify(l))).join("\n")}\n`);
    const ownDb = path.join(folder, "lib.db");
    const imported = await cli("import", file, "--db", ownDb);
    const reported = imported.out.split("\n").filter((l) => l.includes("! "));
    expect(reported.map((l) => Number(/line (\d+)/.exec(l)?.[1]))).toEqual([3, 5, 6]);
    expect(reported[0]).toMatch(/! line 3: invalid JSON: /);
    for (const line of reported) expect(line).not.toMatch(/line \d+: line \d+/);
    const show = (await cli("show", "problems-1", "--db", ownDb)).out;
    expect(show).toContain("3 problems:");
    expect(show).toMatch(/! line 3: invalid JSON: .*the line is kept, and export writes it back/);
    expect(show.indexOf("! line 3:")).toBeLessThan(show.indexOf("! line 5:"));
  });

  it("a folder import where some files could not be read imports the rest and exits 1, the failures in words", async () => {
    const folder = mkdtempSync(path.join(dir, "partial-"));
    copyFileSync(fixturePath("tree-00.jsonl"), path.join(folder, "good.jsonl"));
    symlinkSync(path.join(folder, "gone", "x.jsonl"), path.join(folder, "dangling.jsonl"));
    symlinkSync("loop.jsonl", path.join(folder, "loop.jsonl"));
    const run = await cli("import", folder, "--db", path.join(folder, "lib.db"));
    expect(run.code).toBe(1);
    expect(run.out).toMatch(/^3 files: 1 imported, 0 updated, 0 unchanged, 0 skipped, 2 failed/);
    expect(run.out).toContain(`failed    ${path.join(folder, "dangling.jsonl")} — no such file or folder`);
    expect(run.out).toContain(
      `failed    ${path.join(folder, "loop.jsonl")} — a symbolic link that leads back to itself`,
    );
    expect(run.err).toBe("canopy: error: 2 files could not be imported (listed above)\n");
  });

  it("an id prefix that matches several sessions names them, on one line", async () => {
    const folder = mkdtempSync(path.join(dir, "prefix-"));
    const ownDb = path.join(folder, "lib.db");
    // Two files with one header id: the second session gets an id of its own (header id + tag).
    await cli("import", fixturePath("tree-01.jsonl"), "--db", ownDb);
    await cli("import", fixturePath("tree-01.omp.jsonl"), "--db", ownDb);
    const run = await cli("show", "01a2361e-31b8", "--db", ownDb);
    expect(run.code).toBe(1);
    expect(run.err.trim().split("\n")).toHaveLength(1);
    expect(run.err).toMatch(
      /^canopy: error: "01a2361e-31b8" matches 2 sessions \(01a2361e-31b8-716a-8991-320c8b4b02a4, 01a2361e-31b8-716a-8991-320c8b4b02a4~[0-9a-f]{8}\); give more of the id/,
    );
  });

  it("lists 20 problems of a file and counts the rest (1 more problem)", async () => {
    const folder = mkdtempSync(path.join(dir, "many-"));
    const header = JSON.stringify({
      type: "session",
      version: 3,
      id: "many-1",
      timestamp: "2026-01-01T00:00:00Z",
      cwd: "/x",
    });
    const file = path.join(folder, "s.jsonl");
    writeFileSync(file, `${[header, ...Array.from({ length: 21 }, (_, i) => `{bad ${i}`)].join("\n")}\n`);
    const run = await cli("import", file, "--db", path.join(folder, "lib.db"));
    const listed = run.out.split("\n").filter((l) => l.includes("! "));
    expect(listed).toHaveLength(21);
    expect(listed.at(-1)?.trim()).toBe("! … and 1 more problem");
  });

  it("says so when a folder holds no session files", async () => {
    const folder = mkdtempSync(path.join(dir, "empty-"));
    writeFileSync(path.join(folder, "notes.txt"), "not a session\n");
    const run = await cli("import", folder, "--db", path.join(folder, "lib.db"));
    expect(run.code).toBe(0);
    expect(run.out.trim()).toBe("No session files (*.jsonl) there: nothing imported.");
  });

  it("prints counts in words that agree with them (1 compaction, 2 files)", async () => {
    // Inside the suite's folder, removed after all tests.
    const folder = mkdtempSync(path.join(dir, "words-"));
    copyFileSync(fixturePath("tree-01.jsonl"), path.join(folder, "a.jsonl"));
    copyFileSync(fixturePath("real-large-session.v1.jsonl"), path.join(folder, "b.jsonl"));
    const ownDb = path.join(folder, "lib.db");
    const imported = await cli("import", folder, "--db", ownDb);
    expect(imported.out).toMatch(/^2 files: 2 imported, .* 1164 entries added /);
    const list = await cli("list", "--db", ownDb);
    // tree-01 has one compaction, the v1 session none.
    expect(list.out).toContain("146 entries, 1 compaction  ");
    expect(list.out).toContain("1018 entries, 0 compactions  ");
    const show = await cli("show", path.join(folder, "a.jsonl"), "--db", ownDb);
    expect(show.out).toContain(" · 146 entries · 1 compaction · ");
    // The first user message of tree-01 (its fourth line) is a one-message context.
    const firstUser = (
      JSON.parse(readFileSync(fixturePath("tree-01.jsonl"), "utf8").split("\n")[3] ?? "{}") as {
        id: string;
      }
    ).id;
    const context = await cli("context", path.join(folder, "a.jsonl"), "--leaf", firstUser, "--db", ownDb);
    expect(context.out).toMatch(/^leaf \w+ · 1 message · /);
  });

  it("imports a folder, lists it, and re-import changes nothing", async () => {
    // Inside the suite's folder, removed after all tests.
    const folder = mkdtempSync(path.join(dir, "folder-"));
    copyFileSync(fixturePath("tree-01.jsonl"), path.join(folder, "a.jsonl"));
    copyFileSync(fixturePath("real-large-session.v1.jsonl"), path.join(folder, "b.jsonl"));
    writeFileSync(path.join(folder, "notes.jsonl"), "not json\n");
    const ownDb = path.join(folder, "lib.db");
    const first = await cli("import", folder, "--json", "--db", ownDb);
    expect(first.code).toBe(0);
    const report = JSON.parse(first.out) as { imported: number; skipped: number; unchanged: number };
    expect(report.imported).toBe(2);
    expect(report.skipped).toBe(1);
    const again = JSON.parse((await cli("import", folder, "--json", "--db", ownDb)).out) as typeof report;
    expect(again.imported).toBe(0);
    expect(again.unchanged).toBe(2);
    const list = JSON.parse((await cli("list", "--json", "--db", ownDb)).out) as { id: string }[];
    expect(list).toHaveLength(2);
  });

  it("exports losslessly to a file and resumes at a chosen leaf", async () => {
    const source = fixturePath("tree-02.jsonl");
    const out = path.join(dir, "export.jsonl");
    const run = await cli("export", source, "--out", out, "--db", db);
    expect(run.code).toBe(0);
    const original = readFileSync(source, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    const exported = readFileSync(out, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(exported).toEqual(original);

    const leaf = Object.keys(readExpectedContexts("tree-02").contexts)[5] as string;
    const resumed = await cli("export", source, "--leaf", leaf, "--db", db);
    const lines = resumed.out
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toHaveLength(original.length + 1);
    expect(lines.at(-1)).toMatchObject({ type: "custom", customType: "canopy.resume", parentId: leaf });
  });

  it("finds message text across sessions", async () => {
    await cli("import", fixturePath("tree-01.omp.jsonl"), "--db", db);
    const run = await cli("search", "parser", "--json", "--db", db);
    expect(run.code).toBe(0);
    const hits = JSON.parse(run.out) as { sessionId: string; entryId: string; snippet: string }[];
    expect(hits.length).toBeGreaterThan(0);
    expect(hits[0]?.snippet.toLowerCase()).toContain("parser");
  });

  it("names an untitled session's hits by its first message, as the window does", async () => {
    const own = path.join(mkdtempSync(path.join(dir, "untitled-")), "library.db");
    await cli("import", fixturePath("tree-00.jsonl"), "--db", own);
    const run = await cli("search", "gamma", "--limit", "1", "--db", own);
    expect(run.code).toBe(0);
    const [head] = run.out.split("\n");
    expect(head).toMatch(/ {2}index query token file gamma test branc…$/);
  });
});

describe("bad input: one line on stderr, non-zero exit", () => {
  const cases: [string, string[], RegExp][] = [
    [
      "missing file",
      ["context", "/nonexistent/x.jsonl"],
      /^canopy: error: file not found: \/nonexistent\/x\.jsonl\n$/,
    ],
    ["unknown session id", ["show", "deadbeef"], /^canopy: error: no session with id "deadbeef"/],
    ["unknown command", ["frobnicate"], /^canopy: unknown command "frobnicate"/],
    ["unknown option", ["list", "--frob"], /^canopy: unknown option --frob \(a value starting with "-"/],
    // --leaf with no value, at the end or before another option: says the value is missing.
    [
      "option without its value",
      ["export", "x", "--leaf"],
      /^canopy: --leaf needs a value \(--leaf <value>;/,
    ],
    ["option without its value", ["export", "x", "--leaf", "--json"], /^canopy: --leaf needs a value /],
    [
      "a number out of range",
      ["search", "x", "--limit", "5000"],
      /^canopy: --limit takes a whole number from 1 to 1000, not "5000" \(see `canopy help`\)\n$/,
    ],
    [
      "a number out of range",
      ["compact", "x", "--keep-recent-tokens", "20000000", "--dry-run"],
      /^canopy: --keep-recent-tokens takes a whole number from 1 to 10000000, not "20000000"/,
    ],
  ];
  for (const [name, args, pattern] of cases) {
    it(`${name}: ${args.join(" ")}`, async () => {
      const run = await cli(...args, "--db", db);
      expect(run.code).not.toBe(0);
      expect(run.out).toBe("");
      expect(run.err).toMatch(pattern);
    });
  }

  it("an option after \"--\" (where the unknown-option hint puts a value) is refused, never taken as text", async () => {
    // `settings set k -- -5 --db lib.db` read "-5 --db lib.db" as the value, and `chat S -- "-x"
    // --db lib.db` would send "-x --db lib.db" to the model from the default library.
    // (--db comes first here, so that a run without the refusal still uses the test's library.)
    for (const args of [
      ["--db", db, "settings", "set", "compaction.reserveTokens", "--", "-5", "--json"],
      ["--db", db, "rename", "deadbeef", "--", "-draft", "--json"],
      ["--db", db, "chat", "deadbeef", "--", "-x is wrong", "--db", db],
    ]) {
      const run = await cli(...args);
      expect(run.code, args.join(" ")).toBe(2);
      expect(run.out).toBe("");
      expect(run.err).toMatch(/^canopy: --(db|json) after "--" is text there, not an option: put the options before "--"/);
    }
    const hint = await cli("list", "--frob", "--db", db);
    expect(hint.err).toContain('goes after "--" at the end (options before it), e.g. -- --frob');
  });

  it("importing one file that is no session exits 1 with the reason (a folder of such files still exits 0)", async () => {
    const folder = mkdtempSync(path.join(dir, "not-session-"));
    const file = path.join(folder, "notes.jsonl");
    writeFileSync(file, "not json\n");
    const ownDb = path.join(folder, "lib.db");
    const run = await cli("import", file, "--db", ownDb);
    expect(run.code).toBe(1);
    expect(run.out).toContain("0 imported, 0 updated, 0 unchanged, 1 skipped, 0 failed");
    expect(run.err).toBe(`canopy: error: ${file} is not a session file (no line of the file is valid JSON)\n`);
    expect((await cli("import", folder, "--db", ownDb)).code).toBe(0);
  });

  it("not a session file", async () => {
    const file = path.join(dir, "random.jsonl");
    writeFileSync(file, Buffer.from([0xff, 0x00, 0x13, 0x37, 0x0a, 0x80]));
    const run = await cli("context", file, "--db", db);
    expect(run.code).toBe(1);
    expect(run.err.trim().split("\n")).toHaveLength(1);
    expect(run.err).toContain(file);
  });

  it("unknown leaf", async () => {
    const run = await cli("context", fixturePath("tree-00.jsonl"), "--leaf", "nope1234", "--db", db);
    expect(run.code).toBe(1);
    expect(run.err).toMatch(/has no entry nope1234/);
  });
});

describe("npm run --silent canopy", () => {
  it("prints only the command's own output, so JSON stays parseable", () => {
    const out = execFileSync(
      "npm",
      ["run", "--silent", "canopy", "--", "context", fixturePath("tree-00.jsonl"), "--json", "--db", db],
      {
        cwd: repoRoot,
        encoding: "utf8",
      },
    );
    expect(Array.isArray(JSON.parse(out))).toBe(true);
  });

  it("exits non-zero with one line on stderr for bad input", () => {
    const run = spawnSync("npm", ["run", "--silent", "canopy", "--", "show", "no-such-session", "--db", db], {
      cwd: repoRoot,
      encoding: "utf8",
    });
    expect(run.status).not.toBe(0);
    expect(run.stdout).toBe("");
    expect(run.stderr.trim().split("\n")).toEqual([
      'canopy: error: no session with id "no-such-session" in the library (see `canopy list`)',
    ]);
  });

  it("stops quietly when the reader of its output goes away (`| head`)", () => {
    const file = fixturePath("tree-01.jsonl");
    const run = spawnSync(
      "sh",
      ["-c", `npm run --silent canopy -- context "${file}" --json --db "${db}" | head -c 10`],
      {
        cwd: repoRoot,
        encoding: "utf8",
      },
    );
    expect(run.status).toBe(0);
    expect(run.stdout).toBe("[\n  {\n    ");
    expect(run.stderr).toBe("");
  });
});
