// `canopy help` against what the commands take: every option a command accepts is in its usage
// form (the part before the description), so the help never hides an option that works.
import { describe, expect, it } from "vitest";
import { COMMAND_OPTIONS, USAGE } from "../../main/cli/args.ts";

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
