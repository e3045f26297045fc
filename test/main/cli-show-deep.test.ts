// `canopy show` on a session whose branches nest 300 deep: past 24 levels a branch says its
// depth instead of indenting further, so every line stays readable.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCliCaptured } from "../helpers/cli.ts";

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "canopy-deep-"));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Every entry has two children (a continuation and a side branch), 300 levels down. */
function writeNestedSession(file: string, levels: number): void {
  const lines: unknown[] = [
    { type: "session", version: 3, id: "deep", timestamp: "2026-01-01T00:00:00Z", cwd: "/x" },
  ];
  let parent: string | null = null;
  for (let i = 0; i < levels; i++) {
    for (const [id, text] of [
      [`a${i}`, `main ${i}`],
      [`b${i}`, `side ${i}`],
    ] as const) {
      lines.push({
        type: "message",
        id,
        parentId: parent,
        timestamp: "2026-01-01T00:00:01Z",
        message: { role: "user", content: text },
      });
    }
    parent = `a${i}`;
  }
  fs.writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
}

describe("canopy show, deeply nested branches", () => {
  it("keeps lines short and says the depth past 24 levels", async () => {
    const file = path.join(dir, "deep.jsonl");
    writeNestedSession(file, 300);
    const run = await runCliCaptured(["show", file, "--db", path.join(dir, "library.db")]);
    expect(run.code).toBe(0);
    const lines = run.out.split("\n");
    expect(Math.max(...lines.map((line) => line.length))).toBeLessThan(110);
    expect(lines.find((line) => line.includes("─a10 user main 10"))).toBe(
      `> ${"  ".repeat(10)}├─a10 user main 10`,
    );
    expect(lines.find((line) => line.includes("─a298 "))).toMatch(/^>\s+\[299\] ├─a298 user main 298$/);
    // Every entry is there.
    expect(lines.filter((line) => /├─[ab]\d+ /.test(line))).toHaveLength(600);
  });
});
