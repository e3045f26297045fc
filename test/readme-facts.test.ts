// README's tables against the code, both ways: every setting with its default, every npm script
// and every CANOPY_* environment variable the app reads are in README, and README names none
// that does not exist; every API channel or event it names is in the contract; every keyboard
// shortcut the app lists (?) is in it. (The CLI reference is checked in test/main/cli-help.test.ts.)
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CHANNELS, EVENT_NAMES } from "../core/api/contract.ts";
import { SHORTCUT_GROUPS } from "../renderer/src/features/help/shortcut-list.ts";
import { DEFAULT_SETTINGS, flattenSettings, SETTING_KEYS } from "../core/settings/schema.ts";
import { repoRoot } from "./helpers/fixtures.ts";

const readme = readFileSync(path.join(repoRoot, "README.md"), "utf8");

/** The table rows of the README section under `heading`, as their cells. */
function tableRows(heading: string): string[][] {
  const section = readme.split(`\n${heading}\n`)[1]?.split(/\n#{2,3} /)[0] ?? "";
  return section
    .split("\n")
    .filter((line) => line.startsWith("| ") && !line.startsWith("|---"))
    .slice(1) // the header row
    .map((line) =>
      line
        .split(/(?<!\\)\|/)
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
}

/** The backticked parts of a cell, `a` / `b` → ["a", "b"]. */
const codes = (cell: string | undefined) => [...(cell ?? "").matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? "");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return /\.(ts|tsx|cjs)$/.test(name) ? [full] : [];
  });
}

describe("README's settings table", () => {
  const rows = tableRows("### Settings");
  const documented = new Map<string, string>();
  for (const [keys, defaults] of rows) {
    const names = codes(keys);
    const values = codes(defaults);
    for (const [i, name] of names.entries()) documented.set(name, values[i] ?? "(none)");
  }

  it("has every setting, with its default", () => {
    for (const [key, value] of Object.entries(flattenSettings(DEFAULT_SETTINGS))) {
      expect(documented.get(key), key).toBe(JSON.stringify(value));
    }
  });

  it("names only settings that exist", () => {
    expect(documented.size).toBeGreaterThan(10);
    for (const key of documented.keys()) expect(SETTING_KEYS, key).toContain(key);
  });

  it("describes every field of the model", () => {
    const modelRow = rows.find(([keys]) => codes(keys).includes("model"))?.[2] ?? "";
    for (const key of SETTING_KEYS.filter((k) => k.startsWith("model."))) {
      expect(modelRow, key).toContain(key.slice("model.".length));
    }
  });
});

describe("README's commands table", () => {
  it("has every npm script, and no other", () => {
    const pkg = JSON.parse(readFileSync(path.join(repoRoot, "package.json"), "utf8")) as {
      scripts: Record<string, string>;
    };
    const shown = tableRows("## Commands")
      .flatMap(([command]) => codes(command))
      .flatMap((code) => [...code.matchAll(/npm (?:run )?([a-z]+)/g)].map((m) => m[1] ?? ""));
    expect(new Set(shown)).toEqual(new Set(Object.keys(pkg.scripts)));
  });
});

describe("README's environment table", () => {
  it("has every CANOPY_* variable the app, the CLI and the tests read, and no other", () => {
    const read = new Set<string>();
    for (const dir of ["main", "scripts", "core", "renderer", "preload", "test/helpers"]) {
      for (const file of sourceFiles(path.join(repoRoot, dir))) {
        for (const m of readFileSync(file, "utf8").matchAll(/env(?:\.|\[")(CANOPY_[A-Z_]+|CHROMIUM_PATH)/g)) {
          read.add(m[1] ?? "");
        }
      }
    }
    // Set by the packaging test for its stub Electron, not by a user.
    read.delete("CANOPY_FAKE_ELECTRON_REPORT");
    const documented = tableRows("## Environment").map(([name]) => (codes(name)[0] ?? "").split("=")[0]);
    expect(new Set(documented)).toEqual(read);
  });
});

describe("README's API names", () => {
  it("are channels or events of the contract", () => {
    const named = [...readme.matchAll(/`([a-z]+:[a-z-]+)`/g)].map((m) => m[1] ?? "");
    expect(named.length).toBeGreaterThan(5);
    const known: readonly string[] = [...CHANNELS, ...EVENT_NAMES];
    for (const name of named) expect(known, name).toContain(name);
  });
});

describe("README's keyboard shortcuts", () => {
  it("name every key of the app's shortcut list", () => {
    const keys = SHORTCUT_GROUPS.flatMap((group) => group.shortcuts.flatMap((shortcut) => shortcut.keys));
    // The arrows are words in README ("arrow keys"); Ctrl/Cmd+Z may be written Ctrl+Z there.
    for (const key of keys.filter((k) => !/^[↑↓←→]$/.test(k))) {
      expect(
        [key, key.replace("Ctrl/Cmd+", "Ctrl+")].some((form) => readme.includes(form)),
        key,
      ).toBe(true);
    }
  });
});

describe("README's npm run commands", () => {
  it("give the script's own options after `--` (npm keeps those before it for itself)", () => {
    // `npm run serve --db x` hands serve `x` alone: npm takes `--db` as its own flag. An option is
    // given right when a `--` comes before it in its own [optional part] or one around it.
    const runs = [...readme.matchAll(/npm run(?: --?[a-z-]+)* ([a-z]+)([^`\n#|]*)/g)];
    expect(runs.length).toBeGreaterThan(5);
    for (const [command, , rest] of runs) {
      const misplaced: string[] = [];
      const parts: boolean[] = [false]; // per open [part]: whether its `--` came
      const words = (rest ?? "")
        .replace(/([[\]])/g, " $1 ")
        .split(/\s+/)
        .filter(Boolean);
      for (const word of words) {
        if (word === "[") parts.push(false);
        else if (word === "]") parts.pop();
        else if (word === "--") parts[parts.length - 1] = true;
        else if (word.startsWith("-") && !parts.includes(true)) misplaced.push(word);
      }
      expect(misplaced, command).toEqual([]);
    }
  });
});
