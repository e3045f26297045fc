// buildTreeIndex keeps a node's parent and children by its number instead of a Map per link:
// it answers exactly as the index it replaced (test/helpers/tree-index-reference.ts) on every
// fixture and on hostile generated sessions (orphans, duplicate ids, cycles, labels, no ids).
import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { SessionEntry } from "../../core/session/entries.ts";
import { parseSessionText } from "../../core/session/jsonl.ts";
import { buildTreeIndex, type TreeIndex } from "../../core/session/tree.ts";
import { fixturesDir, readFixture } from "../helpers/fixtures.ts";
import { hostileSessionText } from "../helpers/hostile-session.ts";
import { buildTreeIndexReference } from "../helpers/tree-index-reference.ts";

/** Every field and every lookup of the index, for every id of the entries and a few unknown ones. */
function answers(index: TreeIndex, entries: readonly SessionEntry[]): unknown {
  const at = new Map(entries.map((entry, i) => [entry, i]));
  const where = (list: readonly SessionEntry[]) => list.map((entry) => at.get(entry));
  const ids = [
    ...new Set(entries.flatMap((entry) => (typeof entry.id === "string" ? [entry.id] : []))),
    "unknown-id",
    "",
  ];
  return {
    entries: where(index.entries),
    byId: [...index.byId].map(([id, entry]) => [id, at.get(entry)]),
    roots: where(index.roots),
    labels: [...index.labels],
    problems: index.problems,
    tips: where(index.tips()),
    lookups: ids.map((id) => [
      id,
      index.parentOf(id),
      where(index.children(id)),
      where(index.childrenSorted(id)),
      where(index.pathTo(id)),
    ]),
  };
}

function entriesOf(text: string): { entries: SessionEntry[]; lines: number[] } {
  const parsed = parseSessionText(text);
  return { entries: parsed.entries.map((e) => e.entry), lines: parsed.entries.map((e) => e.line) };
}

describe("buildTreeIndex against the index it replaced", () => {
  const fixtures = readdirSync(fixturesDir()).filter((name) => name.endsWith(".jsonl"));

  it("answers every lookup of every fixture as before", () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(5);
    for (const name of fixtures) {
      const { entries, lines } = entriesOf(readFixture(name));
      expect(entries.length).toBeGreaterThan(0);
      expect(answers(buildTreeIndex(entries, { lines }), entries)).toEqual(
        answers(buildTreeIndexReference(entries, { lines }), entries),
      );
    }
  });

  it("answers every lookup of hostile sessions as before, problems included", () => {
    for (const seed of [1, 2, 3]) {
      const { entries, lines } = entriesOf(hostileSessionText(2500, seed));
      const index = buildTreeIndex(entries, { lines });
      expect(answers(index, entries)).toEqual(answers(buildTreeIndexReference(entries, { lines }), entries));
      const kinds = new Set(index.problems.map((problem) => problem.kind));
      for (const kind of ["orphan", "duplicate_id", "missing_id", "cycle", "invalid_parent", "unknown_type"])
        expect(kinds).toContain(kind);
      expect(index.labels.size).toBeGreaterThan(5);
    }
  });
});
