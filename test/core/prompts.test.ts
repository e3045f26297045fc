// Prompt templates: SPEC §3.5, D4, D8 — Canopy's own framing, overrides, verbatim summaries.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  contextTemplatesFrom,
  DEFAULT_PROMPTS_DIR,
  loadPromptTemplates,
  renderTemplate,
} from "../../prompts/index.ts";

const tempDirs: string[] = [];

function tempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  tempDirs.push(dir);
  return dir;
}

afterEach(() => {
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("context templates", () => {
  it("defaults: a framing paragraph, a blank line, then the summary in tags on their own lines", () => {
    const loaded = loadPromptTemplates();
    for (const name of ["compaction-summary-context", "branch-summary-context"] as const) {
      const t = loaded.templates[name];
      expect(t.source).toBe("default");
      expect(t.path).toBe(path.join(DEFAULT_PROMPTS_DIR, `${name}.md`));
      const text = loaded.render(name, { summary: "SUM" });
      const [framing, rest] = text.split("\n\n<summary>\n");
      expect(framing).toMatch(/^[^\n]+$/);
      expect(rest).toBe("SUM\n</summary>");
    }
  });

  it("D8: summaries are inserted verbatim (indentation, blank lines, $-patterns, braces)", () => {
    const templates = contextTemplatesFrom(loadPromptTemplates());
    const summary = "## Goal\n  indented\n\t\ttabbed\n\n\n\nafter blanks $& $1 {{summary}}\r\n  ";
    for (const text of [templates.compactionSummary(summary), templates.branchSummary(summary)]) {
      expect(text).toContain(`<summary>\n${summary}\n</summary>`);
    }
  });

  it("an override with the same name wins and is reported; one lacking a variable is refused", () => {
    const dir = tempDir("canopy-prompts-");
    writeFileSync(
      path.join(dir, "branch-summary-context.md"),
      "Mine:\r\n\r\n<summary>\n{{ summary }}\n</summary>\n\n",
    );
    writeFileSync(path.join(dir, "compaction-summary-context.md"), "No variable here.");
    const loaded = loadPromptTemplates(dir);
    expect(loaded.templates["branch-summary-context"].source).toBe("override");
    expect(loaded.templates["branch-summary-context"].path).toBe(path.join(dir, "branch-summary-context.md"));
    expect(loaded.render("branch-summary-context", { summary: "S" })).toBe(
      "Mine:\n\n<summary>\nS\n</summary>",
    );
    const refused = loaded.templates["compaction-summary-context"];
    expect(refused.source).toBe("default");
    expect(refused.warning).toContain("{{summary}}");
    // Both locations can be given; the defaults folder is then read from there.
    const both = loadPromptTemplates({ defaultsDir: DEFAULT_PROMPTS_DIR, overrideDir: dir });
    expect(both.templates["branch-summary-context"].source).toBe("override");
    // A folder without the files falls back silently.
    const empty = loadPromptTemplates(tempDir("canopy-empty-"));
    expect(
      Object.values(empty.templates).every((t) => t.source === "default" && t.warning === undefined),
    ).toBe(true);
  });

  it("render requires the template's variables at compile time", () => {
    const loaded = loadPromptTemplates();
    // @ts-expect-error: `summary` is required for this template.
    const missing = loaded.render("compaction-summary-context", {});
    expect(missing).toContain("{{summary}}");
    expect(renderTemplate("a {{x}} b {{y}}", { x: "1" })).toBe("a 1 b {{y}}");
  });
});
