// Summary prompt templates (SPEC §6.2, D8, D13): every template loads, overrides win and are
// reported, variables are checked at compile time, and the file tags come out in D8's format.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  DEFAULT_PROMPTS_DIR,
  loadPromptTemplates,
  renderFileOperations,
  summaryPromptsFrom,
  TEMPLATE_NAMES,
  TEMPLATE_VARIABLES,
} from "../../prompts/index.ts";

const SUMMARY_TEMPLATES = [
  "summarization-system",
  "compaction-summary",
  "compaction-update-summary",
  "compaction-turn-prefix",
  "compaction-short-summary",
  "branch-summary",
  "branch-summary-preamble",
  "file-operations",
] as const;

const tempDirs: string[] = [];

function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "canopy-summary-prompts-"));
  tempDirs.push(dir);
  return dir;
}

afterEach(() => {
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("summary prompt templates", () => {
  it("every template is registered, loads from the defaults folder, trimmed and non-empty", () => {
    const loaded = loadPromptTemplates();
    for (const name of SUMMARY_TEMPLATES) expect(TEMPLATE_NAMES).toContain(name);
    for (const name of TEMPLATE_NAMES) {
      const t = loaded.templates[name];
      expect(t.source).toBe("default");
      expect(t.path).toBe(path.join(DEFAULT_PROMPTS_DIR, `${name}.md`));
      expect(t.warning).toBeUndefined();
      expect(t.text.length).toBeGreaterThan(0);
      expect(t.text).toBe(t.text.trim());
      expect(t.text).not.toContain("\r");
      for (const variable of TEMPLATE_VARIABLES[name]) expect(t.text).toContain(`{{${variable}}}`);
    }
  });

  it("instruction prompts have no variables; only the file tags take the two lists", () => {
    for (const name of SUMMARY_TEMPLATES) {
      expect(TEMPLATE_VARIABLES[name]).toEqual(
        name === "file-operations" ? ["readFiles", "modifiedFiles"] : [],
      );
    }
  });

  it("summaryPromptsFrom maps each template to its SummaryPrompts field", () => {
    const loaded = loadPromptTemplates();
    const prompts = summaryPromptsFrom(loaded);
    expect(prompts.system).toBe(loaded.templates["summarization-system"].text);
    expect(prompts.firstSummary).toBe(loaded.templates["compaction-summary"].text);
    expect(prompts.updateSummary).toBe(loaded.templates["compaction-update-summary"].text);
    expect(prompts.turnPrefix).toBe(loaded.templates["compaction-turn-prefix"].text);
    expect(prompts.shortSummary).toBe(loaded.templates["compaction-short-summary"].text);
    expect(prompts.branchSummary).toBe(loaded.templates["branch-summary"].text);
    expect(prompts.branchPreamble).toBe(loaded.templates["branch-summary-preamble"].text);
  });

  it("SPEC §6.2 structure: sections of the compaction, turn-prefix and branch prompts", () => {
    const p = summaryPromptsFrom(loadPromptTemplates());
    for (const section of ["Goal", "Constraints & Preferences", "Progress", "Key Decisions", "Next Steps"]) {
      expect(p.firstSummary).toContain(`## ${section}`);
      expect(p.branchSummary).toContain(`## ${section}`);
    }
    for (const section of ["Critical Context", "Additional Notes"]) expect(p.firstSummary).toContain(section);
    expect(p.updateSummary).toContain("<previous-summary>");
    for (const section of ["Original Request", "Early Progress", "Context for Suffix"]) {
      expect(p.turnPrefix).toContain(`## ${section}`);
    }
    expect(p.branchSummary).toContain("(none)");
  });

  it("the branch preamble is two lines, the second ending with a colon", () => {
    const lines = summaryPromptsFrom(loadPromptTemplates()).branchPreamble.split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[0]?.length).toBeGreaterThan(0);
    expect(lines[1]?.endsWith(":")).toBe(true);
  });

  it("overrides win, are reported with their path, and are trimmed; a bad one is refused", () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, "summarization-system.md"), "\r\n  Be terse.\r\n\r\n");
    writeFileSync(path.join(dir, "branch-summary-preamble.md"), "Line one.\nLine two:\n");
    writeFileSync(path.join(dir, "file-operations.md"), "<read-files>\n{{readFiles}}\n</read-files>\n");
    const loaded = loadPromptTemplates(dir);
    const system = loaded.templates["summarization-system"];
    expect(system.source).toBe("override");
    expect(system.path).toBe(path.join(dir, "summarization-system.md"));
    const prompts = summaryPromptsFrom(loaded);
    expect(prompts.system).toBe("Be terse.");
    expect(prompts.branchPreamble).toBe("Line one.\nLine two:");
    // file-operations.md must keep both variables: the override lacks {{modifiedFiles}}.
    const ops = loaded.templates["file-operations"];
    expect(ops.source).toBe("default");
    expect(ops.warning).toContain("{{modifiedFiles}}");
    expect(prompts.fileOperations({ readFiles: [], modifiedFiles: ["m.ts"] })).toBe(
      "\n\n<modified-files>\nm.ts\n</modified-files>",
    );
    // Templates without an override file stay on the default and report it.
    for (const name of SUMMARY_TEMPLATES) {
      if (name === "summarization-system" || name === "branch-summary-preamble") continue;
      expect(loaded.templates[name].source).toBe("default");
    }
  });

  it("a complete file-operations override renders with its own tags", () => {
    const dir = tempDir();
    writeFileSync(
      path.join(dir, "file-operations.md"),
      "<seen>\n{{readFiles}}\n</seen>\n\n<changed>\n{{modifiedFiles}}\n</changed>",
    );
    const prompts = summaryPromptsFrom(loadPromptTemplates(dir));
    expect(prompts.fileOperations({ readFiles: ["r"], modifiedFiles: ["m"] })).toBe(
      "\n\n<seen>\nr\n</seen>\n\n<changed>\nm\n</changed>",
    );
  });

  it("render requires each template's variables at compile time", () => {
    const loaded = loadPromptTemplates();
    expect(loaded.render("summarization-system", {})).toBe(loaded.templates["summarization-system"].text);
    // @ts-expect-error: file-operations needs `modifiedFiles` too.
    const partial = loaded.render("file-operations", { readFiles: "a" });
    expect(partial).toContain("{{modifiedFiles}}");
  });
});

describe("D8 file tags", () => {
  const fileOperations = summaryPromptsFrom(loadPromptTemplates()).fileOperations;

  it("both lists: blank line, read block, blank line, modified block, one path per line", () => {
    expect(fileOperations({ readFiles: ["a.ts", "b.ts"], modifiedFiles: ["c.ts"] })).toBe(
      "\n\n<read-files>\na.ts\nb.ts\n</read-files>\n\n<modified-files>\nc.ts\n</modified-files>",
    );
  });

  it("a block is omitted when its list is empty", () => {
    expect(fileOperations({ readFiles: ["a.ts"], modifiedFiles: [] })).toBe(
      "\n\n<read-files>\na.ts\n</read-files>",
    );
    expect(fileOperations({ readFiles: [], modifiedFiles: ["x/y.ts", "z.ts"] })).toBe(
      "\n\n<modified-files>\nx/y.ts\nz.ts\n</modified-files>",
    );
  });

  it("empty string when both lists are empty", () => {
    expect(fileOperations({ readFiles: [], modifiedFiles: [] })).toBe("");
  });

  it("paths are inserted verbatim", () => {
    expect(
      renderFileOperations("<r>\n{{readFiles}}\n</r>\n\n<m>\n{{modifiedFiles}}\n</m>", {
        readFiles: ["$&.ts", "{{modifiedFiles}}"],
        modifiedFiles: [],
      }),
    ).toBe("\n\n<r>\n$&.ts\n{{modifiedFiles}}\n</r>");
  });
});
