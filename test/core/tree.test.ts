// Tree index and validation: SPEC §2.1, §2.3, §2.4, D3.
import { describe, expect, it } from "vitest";
import { buildSessionContext } from "../../core/session/context.ts";
import type { SessionEntry } from "../../core/session/entries.ts";
import { buildTreeIndex } from "../../core/session/tree.ts";
import { entry, iso, msg, textOf, user } from "./_builders.ts";

const ids = (list: readonly SessionEntry[]) => list.map((e) => e.id);

describe("index (SPEC §2.1, §2.3)", () => {
  const entries = [
    msg("r", null, user("r")),
    { ...msg("b", "r", user("b")), timestamp: iso(100) },
    { ...msg("a", "r", user("a")), timestamp: iso(50) },
    msg("b1", "b", user("b1")),
    entry("l1", "b1", "label", { targetId: "a", label: "first" }),
    entry("l2", "l1", "label", { targetId: "r", label: "root" }),
    entry("l3", "l2", "label", { targetId: "a", label: "second" }),
    entry("l4", "l3", "label", { targetId: "r" }),
  ];
  const index = buildTreeIndex(entries);

  it("byId, children in file order and sorted by time, roots, tips, paths", () => {
    expect(index.byId.get("b1")?.id).toBe("b1");
    expect(ids(index.children("r"))).toEqual(["b", "a"]);
    expect(ids(index.childrenSorted("r"))).toEqual(["a", "b"]);
    expect(ids(index.roots)).toEqual(["r"]);
    expect(ids(index.tips())).toEqual(["a", "l4"]);
    expect(ids(index.pathTo("b1"))).toEqual(["r", "b", "b1"]);
    expect(index.pathTo("unknown")).toEqual([]);
    expect(index.parentOf("b1")).toBe("b");
    expect(index.problems).toEqual([]);
  });

  it("labels are applied in file order; an absent label clears", () => {
    expect([...index.labels]).toEqual([["a", "second"]]);
  });
});

describe("D3: validation and repair", () => {
  it("self-parent: reported as a cycle, treated as a root, walks terminate", () => {
    const entries = [msg("a", null, user("a")), msg("s", "s", user("self"))];
    const index = buildTreeIndex(entries, { lines: [2, 3] });
    expect(index.problems).toEqual([
      { kind: "cycle", message: expect.stringContaining("itself"), line: 3, entryId: "s" },
    ]);
    expect(ids(index.roots)).toEqual(["a", "s"]);
    expect(ids(index.pathTo("s"))).toEqual(["s"]);
    expect(buildSessionContext(entries, "s").messages.map(textOf)).toEqual(["self"]);
  });

  it("a longer cycle is broken at the entry whose link closes it, in file order", () => {
    const entries = [
      msg("x", "z", user("x")),
      msg("y", "x", user("y")),
      msg("z", "y", user("z")),
      msg("tail", "z", user("tail")),
    ];
    const index = buildTreeIndex(entries);
    expect(index.problems).toHaveLength(1);
    expect(index.problems[0]).toMatchObject({ kind: "cycle", entryId: "z" });
    expect(ids(index.roots)).toEqual(["z"]);
    expect(ids(index.pathTo("y"))).toEqual(["z", "x", "y"]);
    expect(ids(index.pathTo("tail"))).toEqual(["z", "tail"]);
    // Deterministic: the same input gives the same repair.
    expect(buildTreeIndex(entries).problems).toEqual(index.problems);
    const context = buildSessionContext(entries, "y", index);
    expect(context.messages.map(textOf)).toEqual(["z", "x", "y"]);
  });

  it("duplicate ids: the later entry wins and the duplicate is reported", () => {
    const entries = [
      msg("a", null, user("first a")),
      msg("b", "a", user("b")),
      msg("a", null, user("second a")),
    ];
    const index = buildTreeIndex(entries, { lines: [2, 3, 4] });
    expect(index.problems).toEqual([
      { kind: "duplicate_id", message: expect.stringContaining("a"), line: 4, entryId: "a" },
    ]);
    expect(textOf((index.byId.get("a") as { message: unknown }).message)).toBe("second a");
    expect(ids(index.pathTo("b"))).toEqual(["a", "b"]);
    expect(index.entries).toHaveLength(3);
  });

  it("orphans, missing ids, bad parent types and unknown types are reported and kept", () => {
    const entries = [
      msg("a", null, user("a")),
      msg("o", "ghost", user("orphan")),
      {
        type: "message",
        parentId: "a",
        timestamp: iso(1),
        message: user("no id"),
      } as unknown as SessionEntry,
      entry("w", "a", "weird_future_type", { payload: 1 }),
      { ...msg("n", null, user("n")), parentId: 5 } as unknown as SessionEntry,
    ];
    const index = buildTreeIndex(entries);
    expect(index.problems.map((p) => [p.kind, p.entryId])).toEqual([
      ["missing_id", undefined],
      ["unknown_type", "w"],
      ["invalid_parent", "n"],
      ["orphan", "o"],
    ]);
    expect(ids(index.roots)).toEqual(["a", "o", "n"]);
    expect(ids(index.children("a"))).toEqual(["w"]);
    expect(index.entries).toBe(entries);
  });

  it("a parentId that is neither an id nor null (a number, an object, none) is reported on its line and makes a root", () => {
    const odd = (id: string, parentId: unknown, text: string) => {
      const e = { ...msg(id, null, user(text)), parentId } as Record<string, unknown>;
      if (parentId === undefined) delete e.parentId;
      return e as unknown as SessionEntry;
    };
    const entries = [
      msg("a", null, user("a")),
      msg("b", "a", user("b")),
      odd("n", 5, "number"),
      msg("n1", "n", user("below the number")),
      odd("o", { id: "b" }, "object"),
      odd("l", ["b"], "array"),
      odd("t", true, "boolean"),
      odd("u", undefined, "no parentId"),
      { ...(odd("x", 7, "no id") as unknown as Record<string, unknown>), id: 3 } as unknown as SessionEntry,
      odd("b", "5", "a later b with a string parent: an orphan, not this problem"),
    ];
    const index = buildTreeIndex(entries, { lines: [2, 3, 4, 5, 6, 7, 8, 9, 10, 11] });
    const invalid = index.problems.filter((p) => p.kind === "invalid_parent");
    expect(invalid.map((p) => [p.line, p.entryId, p.message])).toEqual([
      [
        4,
        "n",
        "Entry n has parentId 5 (a number), not an entry id or null: treated as a root, as the agents do",
      ],
      [
        6,
        "o",
        'Entry o has parentId {"id":"b"} (an object), not an entry id or null: treated as a root, as the agents do',
      ],
      [
        7,
        "l",
        'Entry l has parentId ["b"] (an array), not an entry id or null: treated as a root, as the agents do',
      ],
      [
        8,
        "t",
        "Entry t has parentId true (a boolean), not an entry id or null: treated as a root, as the agents do",
      ],
      [
        9,
        "u",
        "Entry u has no parentId (an entry id, or null for a root): treated as a root, as the agents do",
      ],
      [
        10,
        undefined,
        'Entry of type "message" without an id has parentId 7 (a number), not an entry id or null: treated as a root, as the agents do',
      ],
    ]);
    // Nothing else is said about them, and every other problem is still there.
    expect(index.problems.map((p) => [p.kind, p.line])).toEqual([
      ["invalid_parent", 4],
      ["invalid_parent", 6],
      ["invalid_parent", 7],
      ["invalid_parent", 8],
      ["invalid_parent", 9],
      ["invalid_parent", 10],
      ["missing_id", 10],
      ["duplicate_id", 11],
      ["orphan", 11],
    ]);
    // The agents' walk stops there (a lookup by 5 or by an object finds nothing): a root of its own.
    expect(ids(index.roots)).toEqual(["a", "n", "o", "l", "t", "u", "b"]);
    expect(ids(index.pathTo("n1"))).toEqual(["n", "n1"]);
    expect(buildSessionContext(entries, "n1", index).messages.map(textOf)).toEqual([
      "number",
      "below the number",
    ]);
    expect(index.entries).toBe(entries);
  });

  it("deep chains (20,000 entries) index and walk without recursion", () => {
    const entries: SessionEntry[] = [];
    for (let i = 0; i < 20000; i++) entries.push(msg(`e${i}`, i === 0 ? null : `e${i - 1}`, user(`${i}`)));
    const index = buildTreeIndex(entries);
    expect(index.pathTo("e19999")).toHaveLength(20000);
    expect(buildSessionContext(entries, undefined, index).messages).toHaveLength(20000);
  });
});
