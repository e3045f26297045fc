/**
 * Typed loader for Canopy's prompt templates (*.md next to this module, `{{variable}}`
 * placeholders). A file with the same name in a user override folder wins when it keeps every
 * variable. Values are inserted verbatim (D8); only the template text itself is trimmed.
 * Also adapts the loaded set to core's ContextTemplates and SummaryPrompts.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { FileLists, SummaryPrompts } from "../core/compaction/types.ts";
import type { ContextTemplates } from "../core/session/llm-messages.ts";

/** Every template and the variables it needs; render() requires exactly these. */
export const TEMPLATE_VARIABLES = {
  "compaction-summary-context": ["summary"],
  "branch-summary-context": ["summary"],
  "summarization-system": [],
  "compaction-summary": [],
  "compaction-update-summary": [],
  "compaction-turn-prefix": [],
  "compaction-short-summary": [],
  "branch-summary": [],
  "branch-summary-preamble": [],
  "file-operations": ["readFiles", "modifiedFiles"],
} as const satisfies Record<string, readonly string[]>;

export type TemplateName = keyof typeof TEMPLATE_VARIABLES;
export type TemplateVariables<N extends TemplateName> = Record<
  (typeof TEMPLATE_VARIABLES)[N][number],
  string
>;

export const TEMPLATE_NAMES = Object.keys(TEMPLATE_VARIABLES) as TemplateName[];

/** The folder holding the default templates (this module's folder). */
export const DEFAULT_PROMPTS_DIR = fileURLToPath(new URL(".", import.meta.url));

export interface LoadedTemplate {
  name: TemplateName;
  /** Template text, line endings normalized and trimmed. */
  text: string;
  /** Which file is in effect. */
  source: "default" | "override";
  path: string;
  /** Why an override file was present but not used. */
  warning?: string;
}

export interface PromptTemplates {
  readonly templates: { readonly [N in TemplateName]: LoadedTemplate };
  /** The `.md` files in the override folder that override nothing: named after no prompt. */
  readonly strayOverrides: readonly StrayOverride[];
  render<N extends TemplateName>(name: N, variables: TemplateVariables<N>): string;
}

/** Alias used by the main side's application context. */
export type LoadedPrompts = PromptTemplates;

export interface PromptLocations {
  /** Folder of the default templates (default: this module's folder). */
  defaultsDir?: string;
  /** Folder whose same-named files override the defaults. */
  overrideDir?: string;
}

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

function normalize(text: string): string {
  return text.replace(/\r\n?/g, "\n").trim();
}

/** Replaces `{{name}}` with the value, verbatim, in one pass; unknown names stay as written. */
export function renderTemplate(text: string, variables: Readonly<Record<string, string>>): string {
  return text.replace(PLACEHOLDER, (whole, name: string) =>
    Object.hasOwn(variables, name) ? (variables[name] ?? whole) : whole,
  );
}

function missingVariables(name: TemplateName, text: string): string[] {
  const present = new Set([...text.matchAll(PLACEHOLDER)].map((m) => m[1]));
  return TEMPLATE_VARIABLES[name].filter((variable) => !present.has(variable));
}

function errorCode(error: unknown): string | undefined {
  return typeof error === "object" && error !== null && "code" in error ? String(error.code) : undefined;
}

function loadOne(name: TemplateName, defaultsDir: string, overrideDir: string | undefined): LoadedTemplate {
  const defaultPath = join(defaultsDir, `${name}.md`);
  const fallback = (warning?: string): LoadedTemplate => {
    const loaded: LoadedTemplate = {
      name,
      text: normalize(readFileSync(defaultPath, "utf8")),
      source: "default",
      path: defaultPath,
    };
    if (warning !== undefined) loaded.warning = warning;
    return loaded;
  };
  if (overrideDir === undefined) return fallback();
  const overridePath = join(overrideDir, `${name}.md`);
  let text: string;
  try {
    text = normalize(readFileSync(overridePath, "utf8"));
  } catch (error) {
    if (errorCode(error) === "ENOENT") return fallback();
    return fallback(
      `could not read ${overridePath}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const missing = missingVariables(name, text);
  if (missing.length > 0) {
    const list = missing.map((v) => `{{${v}}}`).join(", ");
    return fallback(`${overridePath} lacks ${list}; using the default template`);
  }
  return { name, text, source: "override", path: overridePath };
}

/** A `.md` file of the override folder named after no template, and why it is not used. */
export interface StrayOverride {
  file: string;
  path: string;
  warning: string;
}

/** The `.md` files of the override folder named after no template (a typo overrides nothing). */
function strayOverrides(overrideDir: string | undefined): StrayOverride[] {
  if (overrideDir === undefined) return [];
  let names: string[];
  try {
    names = readdirSync(overrideDir);
  } catch {
    return [];
  }
  const known = new Set<string>(TEMPLATE_NAMES.map((name) => `${name}.md`));
  return names
    .filter((name) => name.endsWith(".md") && !known.has(name))
    .sort()
    .map((name) => ({
      file: name,
      path: join(overrideDir, name),
      warning: `${join(overrideDir, name)} is named after no prompt (the names are those of the files in Canopy's prompts/ folder, as compaction-summary.md)`,
    }));
}

/**
 * Reads every template (an override folder path, or both locations). Same-named files in the
 * override folder win. Throws if a default template is missing.
 */
export function loadPromptTemplates(locations?: string | PromptLocations): PromptTemplates {
  const where: PromptLocations =
    typeof locations === "string" ? { overrideDir: locations } : (locations ?? {});
  const defaultsDir = where.defaultsDir ?? DEFAULT_PROMPTS_DIR;
  const templates = Object.fromEntries(
    TEMPLATE_NAMES.map((name) => [name, loadOne(name, defaultsDir, where.overrideDir)]),
  ) as { [N in TemplateName]: LoadedTemplate };
  return {
    templates,
    strayOverrides: strayOverrides(where.overrideDir),
    render: (name, variables) => renderTemplate(templates[name].text, variables),
  };
}

/** The two summary framings core's convertToLlm needs. */
export function contextTemplatesFrom(loaded: PromptTemplates): ContextTemplates {
  return {
    compactionSummary: (summary) => loaded.render("compaction-summary-context", { summary }),
    branchSummary: (summary) => loaded.render("branch-summary-context", { summary }),
  };
}

/**
 * Renders the file tags appended to a summary (D8): a blank line, then the paragraphs of
 * `file-operations.md` joined by a blank line. A paragraph whose placeholders all render empty
 * is left out (so an empty list drops its block); "" when both lists are empty.
 */
export function renderFileOperations(template: string, lists: FileLists): string {
  if (lists.readFiles.length === 0 && lists.modifiedFiles.length === 0) return "";
  const variables: Record<string, string> = {
    readFiles: lists.readFiles.join("\n"),
    modifiedFiles: lists.modifiedFiles.join("\n"),
  };
  const kept = template.split(/\n[ \t]*\n/).filter((paragraph) => {
    const names = [...paragraph.matchAll(PLACEHOLDER)].map((m) => m[1] ?? "");
    return names.length === 0 || names.some((name) => (variables[name] ?? "") !== "");
  });
  return `\n\n${kept.map((paragraph) => renderTemplate(paragraph, variables)).join("\n\n")}`;
}

/** The prompt texts core's summary generation needs (SPEC §6.2), from the loaded set. */
export function summaryPromptsFrom(loaded: PromptTemplates): SummaryPrompts {
  const text = (name: TemplateName): string => loaded.templates[name].text;
  return {
    system: text("summarization-system"),
    firstSummary: text("compaction-summary"),
    updateSummary: text("compaction-update-summary"),
    turnPrefix: text("compaction-turn-prefix"),
    shortSummary: text("compaction-short-summary"),
    branchSummary: text("branch-summary"),
    branchPreamble: text("branch-summary-preamble"),
    fileOperations: (lists) => renderFileOperations(text("file-operations"), lists),
  };
}
