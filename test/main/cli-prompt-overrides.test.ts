/**
 * Prompt overrides next to the library, through the CLI: a usable override changes what the
 * model is shown; one that is not used (a missing placeholder) is said on stderr, not skipped
 * silently, by the commands that render prompts.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCliCaptured } from "../helpers/cli.ts";
import { fixturePath } from "../helpers/fixtures.ts";

process.env.CANOPY_NO_DEMO = "1";

let dir: string;
let db: string;
let override: string;

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "canopy-cli-prompts-"));
  db = path.join(dir, "library.db");
  mkdirSync(path.join(dir, "prompts"));
  override = path.join(dir, "prompts", "compaction-summary-context.md");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("canopy with a prompt override next to the library", () => {
  it("frames the compaction summary with the override's text", async () => {
    writeFileSync(override, "MY FRAMING\n\n<s>{{summary}}</s>\n");
    const run = await runCliCaptured(["context", fixturePath("tree-00.jsonl"), "--db", db]);
    expect(run.code).toBe(0);
    expect(run.out).toContain("MY FRAMING");
    expect(run.err).toBe("");
  });

  it("says on stderr that an override lacking {{summary}} is not used, and uses the default", async () => {
    writeFileSync(override, "MY FRAMING without the placeholder\n");
    const run = await runCliCaptured(["context", fixturePath("tree-00.jsonl"), "--db", db]);
    expect(run.code).toBe(0);
    expect(run.out).not.toContain("MY FRAMING");
    expect(run.out).toContain("<summary>");
    expect(run.err).toBe(
      `prompt override not used: ${override} lacks {{summary}}; using the default template\n`,
    );
  });

  it("says on stderr that a file in prompts/ named after no prompt overrides nothing", async () => {
    const typo = path.join(dir, "prompts", "compaction_summary.md");
    writeFileSync(typo, "MY SUMMARY PROMPT\n");
    writeFileSync(path.join(dir, "prompts", "notes.txt"), "not a prompt\n");
    const run = await runCliCaptured(["context", fixturePath("tree-00.jsonl"), "--db", db]);
    expect(run.code).toBe(0);
    expect(run.err).toBe(
      `prompt override not used: ${typo} is named after no prompt (the names are those of the files in Canopy's prompts/ folder, as compaction-summary.md)\n`,
    );
  });

  it("keeps commands that use no prompt quiet about it", async () => {
    writeFileSync(override, "no placeholder\n");
    const run = await runCliCaptured(["list", "--db", db]);
    expect(run.code).toBe(0);
    expect(run.err).toBe("");
  });
});
