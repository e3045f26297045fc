/**
 * Locates the shared session fixtures for tests: env CANOPY_FIXTURES, else ../shared/fixtures
 * next to the repository root, else next to the local checkout it was cloned from (a fresh clone
 * in a temp folder). Also reads fixture files and the expected LLM views.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** Repository root: two levels above this file (test/helpers/). */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** The checkout this one was cloned from, when that is a local folder (a clone in a temp folder). */
function localOrigin(): string | null {
  try {
    const url = execFileSync("git", ["config", "--get", "remote.origin.url"], {
      cwd: repoRoot,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
    return url !== "" && path.isAbsolute(url) ? url : null;
  } catch {
    return null;
  }
}

/** The main checkout when this one is a `git worktree` of it (worktrees have no origin of their own). */
function mainCheckout(): string | null {
  try {
    const common = execFileSync("git", ["rev-parse", "--path-format=absolute", "--git-common-dir"], {
      cwd: repoRoot,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
    const checkout = path.dirname(common);
    return common !== "" && checkout !== repoRoot ? checkout : null;
  } catch {
    return null;
  }
}

let found: string | null = null;

export function fixturesDir(): string {
  if (found !== null) return found;
  const fromEnv = process.env.CANOPY_FIXTURES;
  const origin = fromEnv === undefined ? localOrigin() : null;
  const main = fromEnv === undefined ? mainCheckout() : null;
  const candidates =
    fromEnv !== undefined
      ? [fromEnv]
      : [
          path.resolve(repoRoot, "../shared/fixtures"),
          ...(origin ? [path.resolve(origin, "../shared/fixtures")] : []),
          ...(main ? [path.resolve(main, "../shared/fixtures")] : []),
        ];
  const dir = candidates.find((c) => existsSync(c));
  if (dir === undefined) {
    throw new Error(
      `Session fixtures not found at ${candidates.join(" or ")}. Set CANOPY_FIXTURES to the folder holding tree-00.jsonl … and expected/.`,
    );
  }
  found = dir;
  return dir;
}

export function fixturePath(name: string): string {
  return path.join(fixturesDir(), name);
}

export function readFixture(name: string): string {
  return readFileSync(fixturePath(name), "utf8");
}

/** Every session fixture (the *.jsonl files) as [name, text], by name. */
export function fixtureTexts(): (readonly [name: string, text: string])[] {
  return readdirSync(fixturesDir())
    .filter((name) => name.endsWith(".jsonl"))
    .sort()
    .map((name) => [name, readFixture(name)] as const);
}

/** One leaf's expected result in expected/tree-NN.contexts.json. */
export interface ExpectedContext {
  thinkingLevel: string;
  model: { provider: string; modelId: string } | null;
  messages: unknown[];
}

export interface ExpectedContexts {
  leaf: string;
  contexts: Record<string, ExpectedContext>;
}

export function readExpectedContexts(tree: string): ExpectedContexts {
  return JSON.parse(readFixture(`expected/${tree}.contexts.json`)) as ExpectedContexts;
}

/** Keeps only the summary between the tags (framing text is Canopy's own, SPEC D4). */
export function withoutSummaryFraming(message: unknown): unknown {
  const m = message as { role?: string; content?: unknown };
  if (m.role !== "user" || !Array.isArray(m.content)) return message;
  const content = m.content.map((block: { type?: string; text?: string }) => {
    if (block.type !== "text" || typeof block.text !== "string") return block;
    const open = block.text.indexOf("<summary>");
    const close = block.text.lastIndexOf("</summary>");
    if (open < 0 || close < open) return block;
    // Tags on their own lines in Canopy's templates; pi glues the branch closing tag to the text.
    const inner = block.text
      .slice(open + "<summary>".length, close)
      .replace(/^\n/, "")
      .replace(/\n$/, "");
    return { ...block, text: `<summary>${inner}</summary>` };
  });
  return { ...m, content };
}
