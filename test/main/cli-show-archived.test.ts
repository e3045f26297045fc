// `canopy show` marks archived branches (Archive branch, an undone answered edit, a result saved
// hidden by another Canopy's undo): the app hides them, and in the terminal they looked like any
// other branch. Each of their lines is marked `~`, their first entry says [archived], and the
// legend says what that means; a session without any keeps its legend as it was.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "../../main/cli.ts";
import { textColumns } from "../../core/text/columns.ts";
import { cliRecorder } from "../helpers/cli.ts";

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "canopy-show-archived-"));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const ID = "0195f0c2-3333-7000-8000-0000000000b2";
const T = "2026-02-01T10:00:00.000Z";
const message = (id: string, parentId: string | null, role: "user" | "assistant", text: string) => ({
  type: "message",
  id,
  parentId,
  timestamp: T,
  message:
    role === "user"
      ? { role, content: text, timestamp: 1 }
      : { role, content: [{ type: "text", text }], timestamp: 1, stopReason: "stop" },
});
// u1 ─ a1 ─┬─ u2 ─ a2          (the file's leaf)
//          └─ u3 ─ a3          (archived below)
const lines = [
  { type: "session", version: 3, id: ID, timestamp: T, cwd: "/work/archived" },
  message("u1", null, "user", "Start"),
  message("a1", "u1", "assistant", "Started"),
  message("u3", "a1", "user", "Side question"),
  message("a3", "u3", "assistant", "Side answer"),
  message("u2", "a1", "user", "Main question"),
  message("a2", "u2", "assistant", "Main answer"),
];

async function show(cli: ReturnType<typeof cliRecorder>): Promise<string[]> {
  cli.out.length = 0;
  expect(await cli.run("show", ID)).toBe(0);
  return cli.out.join("\n").split("\n");
}

describe("canopy show and archived branches", () => {
  it("marks every entry of an archived branch, says [archived] at its start, and explains it in the legend", async () => {
    const file = path.join(dir, "s.jsonl");
    fs.writeFileSync(file, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
    const cli = cliRecorder(path.join(dir, "library.db"));
    expect(await cli.run("import", file)).toBe(0);
    const before = await show(cli);
    expect(before.find((line) => line.startsWith("legend:"))).toBe(
      "legend: * view leaf, > on the path to it, [first kept by C] where compaction C starts keeping entries",
    );
    expect(before.some((line) => line.includes("~") || line.includes("[archived]"))).toBe(false);

    expect(await cli.run("archive", ID, "u3", "--yes")).toBe(0);
    const after = await show(cli);
    expect(after.find((line) => line.startsWith("legend:"))).toMatch(
      /, ~ in an archived branch and \[archived\] at its start \(hidden in the app: Restore branch under Show archived shows it\)$/,
    );
    expect(after.find((line) => /[ ─]u3 (user|assistant)/.test(line))).toMatch(
      /^~ .*u3 user \[archived\] Side question$/,
    );
    expect(after.find((line) => /[ ─]a3 (user|assistant)/.test(line))).toMatch(
      /^~ .*a3 assistant Side answer$/,
    );
    expect(after.find((line) => /[ ─]u2 (user|assistant)/.test(line))).toMatch(/^> .*u2 user Main question$/);
    expect(after.find((line) => /[ ─]a2 (user|assistant)/.test(line))).toMatch(
      /^\* .*a2 assistant Main answer$/,
    );

    expect(await cli.run("unarchive", ID, "u3")).toBe(0);
    expect(await show(cli)).toEqual(before);
  });

  it("keeps the ~ on every line of an archived entry fitted to a narrow terminal", async () => {
    const file = path.join(dir, "s.jsonl");
    fs.writeFileSync(file, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
    const db = path.join(dir, "library.db");
    const cli = cliRecorder(db);
    expect(await cli.run("import", file)).toBe(0);
    expect(await cli.run("archive", ID, "u3", "--yes")).toBe(0);
    expect(await cli.run("label", ID, "u3", "a label long enough to wrap on a narrow terminal")).toBe(0);
    const out: string[] = [];
    const io = {
      out: (text: string) => out.push(text),
      err: () => {},
      progress: () => {},
      isTerminal: true,
      columns: 30,
    };
    expect(await runCli(["show", ID, "--db", db], io)).toBe(0);
    const shown = out.join("\n").split("\n");
    const archived = shown.slice(shown.findIndex((line) => /u3 user/.test(line)));
    // The branch comes last (the one holding the view leaf first): its entries' lines and their continuations.
    expect(archived.length).toBeGreaterThan(3);
    for (const line of archived) {
      expect(line, line).toMatch(/^~ /);
      expect(textColumns(line), line).toBeLessThanOrEqual(30);
    }
  });
});
