// The reasons a disabled or held control gives (its tooltip, its accessible description, the line a
// click on a held one puts up) follow one rule: a full sentence, capitalised, ending with a full
// stop. Before, the idle ones ("Nothing to redo", "Type a label first") ended without one and the
// busy ones ("…available again once it is done.") with one, some busy ones without. Every reason the
// module holds is checked, so a new one that breaks the rule fails here.
import { describe, expect, it } from "vitest";
import type { JobKind } from "../../core/api/dto-jobs.ts";
import * as reasons from "../../renderer/src/store/disabled-reasons.ts";
import { refusedLine } from "../../renderer/src/store/refused-line.ts";

const JOB_KINDS: JobKind[] = ["chat", "compaction", "branch-summary"];

/** Every reason the module holds: its strings, the strings of its records, each job kind's reason. */
function allReasons(): [name: string, text: string][] {
  const found: [string, string][] = [];
  for (const [name, value] of Object.entries(reasons)) {
    if (typeof value === "string") found.push([name, value]);
    else if (typeof value === "function")
      for (const kind of JOB_KINDS)
        found.push([`${name}(${kind})`, (value as (kind: JobKind) => string)(kind)]);
    else for (const [key, text] of Object.entries(value)) found.push([`${name}.${key}`, String(text)]);
  }
  return found;
}

describe("the reasons of disabled and held controls", () => {
  it("are many (the module's exports are read, not an empty list)", () => {
    expect(allReasons().length).toBeGreaterThanOrEqual(30);
  });

  it.each(allReasons())("%s is a sentence ending with a full stop", (_name, text) => {
    expect(text).toMatch(/^[A-Z]/);
    // One full stop after the last word or bracket: not "..", "…." or " .".
    expect(text).toMatch(/[^.\s…]\.$/);
  });

  it("make click lines that end the same way", () => {
    for (const [, text] of allReasons())
      expect(refusedLine("Import did nothing", text).text).toMatch(/[^.\s…]\.$/);
  });
});
