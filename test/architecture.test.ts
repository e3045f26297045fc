// Import zones (DESIGN §2, §6): core imports nothing outside core (and no Node/DOM/Electron or
// heavy libraries), the renderer never imports main, the preload imports only core and electron,
// and only main/llm/openai-client.ts imports the openai SDK.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "./helpers/fixtures.ts";

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) out.push(...sourceFiles(full));
    else if (/\.(ts|tsx)$/.test(name)) out.push(full);
  }
  return out;
}

/** Every module specifier a file imports (static imports, re-exports and dynamic imports). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const specifiers: string[] = [];
  for (const match of text.matchAll(/(?:^|\n)\s*(?:import|export)[^;]*?from\s+["']([^"']+)["']/g)) {
    if (match[1]) specifiers.push(match[1]);
  }
  for (const match of text.matchAll(/import\(\s*["']([^"']+)["']\s*\)/g))
    if (match[1]) specifiers.push(match[1]);
  return specifiers;
}

function resolvedZone(file: string, specifier: string): string {
  if (!specifier.startsWith(".")) return `package:${specifier}`;
  const target = path.relative(repoRoot, path.resolve(path.dirname(file), specifier));
  return `zone:${target.split(path.sep)[0]}`;
}

function violations(zone: string, allowed: (target: string) => boolean): string[] {
  const found: string[] = [];
  for (const file of sourceFiles(path.join(repoRoot, zone))) {
    for (const specifier of importsOf(file)) {
      const target = resolvedZone(file, specifier);
      if (!allowed(target)) found.push(`${path.relative(repoRoot, file)} imports ${specifier}`);
    }
  }
  return found;
}

describe("import zones", () => {
  it("core imports only core and zod", () => {
    expect(violations("core", (t) => t === "zone:core" || t === "package:zod")).toEqual([]);
  });

  it("the renderer never imports main or preload", () => {
    expect(violations("renderer", (t) => t !== "zone:main" && t !== "zone:preload")).toEqual([]);
  });

  it("the preload imports only core and electron", () => {
    expect(violations("preload", (t) => t === "zone:core" || t === "package:electron")).toEqual([]);
  });

  it("only main/llm/openai-client.ts imports the openai SDK", () => {
    const importers = ["core", "main", "renderer", "preload", "prompts"]
      .flatMap((zone) => sourceFiles(path.join(repoRoot, zone)))
      .filter((file) =>
        importsOf(file).some((specifier) => specifier === "openai" || specifier.startsWith("openai/")),
      )
      .map((file) => path.relative(repoRoot, file));
    expect(importers).toEqual([path.join("main", "llm", "openai-client.ts")]);
  });

  it("finds imports at all (the scanner works)", () => {
    expect(importsOf(path.join(repoRoot, "main", "cli.ts")).length).toBeGreaterThan(3);
  });
});

describe("write transactions", () => {
  it("main begins every transaction IMMEDIATE (writeTransaction), so a second connection never makes one fail", () => {
    const deferred = sourceFiles(path.join(repoRoot, "main"))
      .filter((file) => !file.endsWith(path.join("store", "transactions.ts")))
      .filter((file) =>
        /\.transaction\(|exec\(\s*["'`]BEGIN(?!\s+IMMEDIATE)/.test(readFileSync(file, "utf8")),
      )
      .map((file) => path.relative(repoRoot, file));
    expect(deferred).toEqual([]);
  });
});
