// `canopy help` against what the commands take: every option a command accepts is in its usage
// form (the part before the description), so the help never hides an option that works; a
// mistyped option is answered with the one meant.
import { describe, expect, it } from "vitest";
import { COMMAND_OPTIONS, USAGE } from "../../main/cli/args.ts";
import { runCliCaptured } from "../helpers/cli.ts";

/** The usage forms of `command`: "<command> …" at a line's start or after " | ", up to its description. */
function formsOf(command: string): string[] {
  const forms: string[] = [];
  for (const match of USAGE.matchAll(/(?:^ {2}| \| )([a-z-]+)((?: (?!\| )\S+)*)/gm)) {
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
