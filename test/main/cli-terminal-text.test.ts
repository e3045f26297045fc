// On a terminal, control characters from session content (ANSI codes in a recorded tool output,
// a hostile title-setting sequence) are shown, not obeyed; piped output stays byte for byte.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { lineWriter, terminalText } from "../../main/cli/terminal-text.ts";
import { repoRoot } from "../helpers/fixtures.ts";

const HOSTILE = "hi \u001b[31mRED\u001b[0m \u001b]0;pwned\u0007 end\rOVER\r\nnext\ttab \u009b2J \u007f";

describe("terminalText", () => {
  it("shows control characters as symbols; keeps line breaks and tabs", () => {
    expect(terminalText(HOSTILE)).toBe("hi ␛[31mRED␛[0m ␛]0;pwned␇ end␍OVER\nnext\ttab \\u009b2J ␡");
    expect(terminalText("plain text, ünïcödé, emoji 🌳\n")).toBe("plain text, ünïcödé, emoji 🌳\n");
  });

  it("shows bidi overrides and isolates, which would reorder the rest of the line, as escapes", () => {
    expect(terminalText("Report\u202Efdp.exe \u2067x\u2069 \u202Ay\u202C")).toBe(
      "Report\\u202efdp.exe \\u2067x\\u2069 \\u202ay\\u202c",
    );
    // Right-to-left text and its marks stay as they are.
    expect(terminalText("مرحبا \u200Fעברית\u200E")).toBe("مرحبا \u200Fעברית\u200E");
  });

  it("applies only to a terminal", () => {
    const written: string[] = [];
    lineWriter({ isTTY: true, write: (t) => written.push(t) })(HOSTILE);
    lineWriter({ isTTY: false, write: (t) => written.push(t) })(HOSTILE);
    lineWriter({ write: (t) => written.push(t) })("no newline");
    expect(written).toEqual([`${terminalText(HOSTILE)}\n`, `${HOSTILE}\n`, "no newline\n"]);
  });
});

describe("canopy context on a session with escape sequences", () => {
  it("shows them on a terminal and writes them unchanged when piped", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "canopy-esc-"));
    try {
      const file = path.join(dir, "esc.jsonl");
      const lines = [
        { type: "session", version: 3, id: "esc-1", timestamp: "2026-01-01T00:00:00Z", cwd: "/x" },
        {
          type: "message",
          id: "m1",
          parentId: null,
          timestamp: "2026-01-01T00:00:01Z",
          message: { role: "user", content: "colour \u001b[31mred\u001b[0m" },
        },
      ];
      fs.writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
      const run = spawnSync(
        "npm",
        ["run", "--silent", "canopy", "--", "context", file, "--db", path.join(dir, "library.db")],
        { cwd: repoRoot, encoding: "utf8" },
      );
      expect(run.status).toBe(0);
      expect(run.stdout).toContain("colour \u001b[31mred\u001b[0m");
      // A terminal of its own (util-linux script): the same command shows the codes.
      const command = `npm run --silent canopy -- context '${file}' --db '${path.join(dir, "library.db")}'`;
      const onTerminal = spawnSync("script", ["-qec", command, "/dev/null"], {
        cwd: repoRoot,
        encoding: "utf8",
      });
      expect(onTerminal.status).toBe(0);
      expect(onTerminal.stdout).toContain("colour ␛[31mred␛[0m");
      expect(onTerminal.stdout).not.toContain("\u001b[31m");
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
