// `canopy help` against what the commands take: every option a command accepts is in its usage
// form (the part before the description), so the help never hides an option that works; a
// mistyped option is answered with the one meant. README's CLI reference the same way, both
// ways: every command and option the CLI takes is there, and nothing it does not take.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { COMMAND_OPTIONS, USAGE } from "../../main/cli/args.ts";
import { runCliCaptured } from "../helpers/cli.ts";
import { repoRoot } from "../helpers/fixtures.ts";

/**
 * The usage forms of `command`: "<command> …" at a line's start or after " | ", up to its
 * description (a form continued on the next lines, indented by 4, is read as one line).
 */
function formsOf(command: string): string[] {
  const forms: string[] = [];
  const joined = USAGE.replace(/\n {4}(?=[[|-])/g, " ");
  for (const match of joined.matchAll(/(?:^ {2}| \| )([a-z-]+)((?: (?!\| )\S+)*)/gm)) {
    if (match[1] === command) forms.push(`${match[1]}${match[2] ?? ""}`);
  }
  return forms;
}

describe("canopy help", () => {
  for (const [command, options] of Object.entries(COMMAND_OPTIONS)) {
    it(`shows ${command} with every option it takes`, () => {
      const forms = formsOf(command);
      expect(forms.length, `${command} has a usage form`).toBeGreaterThan(0);
      const shown = forms.join(" ");
      for (const option of options) expect(shown, command).toContain(`--${option}`);
    });
  }
});

/** README's CLI reference table: each row's usage forms (the backticked parts of its first cell). */
function readmeForms(): { command: string; options: string[] }[] {
  const readme = readFileSync(path.join(repoRoot, "README.md"), "utf8");
  const section = readme.split("### CLI reference")[1]?.split("\n## ")[0] ?? "";
  const forms: { command: string; options: string[] }[] = [];
  for (const line of section.split("\n")) {
    const firstCell = /^\|((?:[^|\\]|\\.)*)\|/.exec(line)?.[1] ?? "";
    for (const [, form = ""] of firstCell.matchAll(/`([^`]+)`/g)) {
      const command = form.split(" ")[0] ?? "";
      forms.push({ command, options: [...form.matchAll(/--([a-z-]+)/g)].map((m) => m[1] ?? "") });
    }
  }
  return forms;
}

describe("README's CLI reference", () => {
  const forms = readmeForms();
  // `help` (also `--help`, `-h` after any command) prints USAGE; the errors point to it.
  const commands: Record<string, readonly string[]> = { ...COMMAND_OPTIONS, help: [] };
  it("has a row for every command, showing every option it takes", () => {
    for (const [command, options] of Object.entries(commands)) {
      const shown = forms.filter((form) => form.command === command).flatMap((form) => form.options);
      expect(
        forms.map((form) => form.command),
        "README lists the command",
      ).toContain(command);
      for (const option of options) expect(shown, `${command} --${option} in README`).toContain(option);
    }
  });

  it("names no command or option the CLI does not take", () => {
    expect(forms.length).toBeGreaterThan(20);
    for (const { command, options } of forms) {
      const takes = commands[command];
      expect(takes, `README's ${command} is a command`).toBeDefined();
      for (const option of options) expect(takes, `${command} takes --${option}`).toContain(option);
    }
  });
});

describe("a mistyped option", () => {
  // `list --jsn` said: unknown option --jsn (a value starting with "-" goes after "--" at the
  // end …), a hint about values that does not help with a typo.
  it("names the option it is close to", async () => {
    const cases: [string[], string][] = [
      [["list", "--jsn"], "--json"],
      [["export", "s", "--ouput", "x.jsonl"], "--out"],
      [["compact", "s", "--dryrun"], "--dry-run"],
      [["search", "q", "--limt", "3"], "--limit"],
    ];
    for (const [args, meant] of cases) {
      const run = await runCliCaptured(args);
      expect(run.code, args.join(" ")).toBe(2);
      const typed = args.find((arg) => arg.startsWith("--"));
      expect(run.err).toBe(
        `canopy: unknown option ${typed} (did you mean ${meant}?) (see \`canopy help\`)\n`,
      );
    }
    // Far from every option: the hint for a value that starts with "-" stays.
    expect((await runCliCaptured(["list", "--frobnicate"])).err).toMatch(
      /^canopy: unknown option --frobnicate \(a value starting with "-"/,
    );
  });
});
