// Opening a session's tree (session:tree) reads less than it did: the route gives exactly the
// nodes of the old route (test/helpers/tree-nodes-reference.ts) on every fixture, a generated
// session and entries rewritten by pruning, while it never reads a rewritten entry's original
// and makes each snippet from the beginning of the entry's text only.
import fs from "node:fs";
import path from "node:path";
import type { Statement } from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { generateSession } from "../../bench/generate-session.ts";
import { entrySnippet, entrySnippetCut, entryText, flatten } from "../../core/session/describe.ts";
import { TREE_SNIPPET_CHARS, type TreeNodeDto } from "../../core/api/dto.ts";
import type { SessionEntry } from "../../core/session/entries.ts";
import { importPath } from "../../main/library/import.ts";
import { loadSessionTree } from "../../main/library/tree-nodes.ts";
import type { Database } from "../../main/store/open.ts";
import { CACHED_SESSIONS } from "../../main/library/tree-node-cache.ts";
import { replaceEntryJson, restoreEntryJson } from "../../main/store/repos/entry-json.ts";
import { setArchived } from "../../main/store/repos/edits.ts";
import { listSessionRows } from "../../main/store/repos/sessions.ts";
import { fixturesDir } from "../helpers/fixtures.ts";
import { hostileSessionText } from "../helpers/hostile-session.ts";
import { loadSessionTreeReference, loadSessionTreeReferenceWire } from "../helpers/tree-nodes-reference.ts";
import { copyFixture, fixtureNames, type Library, makeLibrary } from "./library/helpers.ts";

let lib: Library;
beforeEach(() => {
  lib = makeLibrary();
});
afterEach(() => {
  vi.restoreAllMocks();
  lib.cleanup();
});

function importText(name: string, text: string): string {
  const file = path.join(lib.dir, name);
  fs.writeFileSync(file, text);
  const sessionId = importPath(lib.db, file).files[0]?.sessionId;
  if (!sessionId) throw new Error(`${name} did not import`);
  return sessionId;
}

function sidOf(sessionId: string): number {
  const row = listSessionRows(lib.db).find((r) => r.id === sessionId);
  if (!row) throw new Error(`no session ${sessionId}`);
  return row.sid;
}

/** Chars of the text values in the rows `db`'s statements hand to JS while `run` runs. */
function charsRead(db: Database, run: () => void): number {
  const proto = Object.getPrototypeOf(db.prepare("SELECT 1")) as Statement;
  const { all, get } = proto;
  let chars = 0;
  const count = (row: unknown) => {
    for (const value of Array.isArray(row) ? row : Object.values(row ?? {}))
      if (typeof value === "string") chars += value.length;
  };
  vi.spyOn(proto, "all").mockImplementation(function (this: Statement, ...args: unknown[]) {
    const rows = all.apply(this, args);
    for (const row of rows) count(row);
    return rows;
  });
  vi.spyOn(proto, "get").mockImplementation(function (this: Statement, ...args: unknown[]) {
    const row = get.apply(this, args);
    count(row);
    return row;
  });
  try {
    run();
    return chars;
  } finally {
    vi.restoreAllMocks();
  }
}

describe("session:tree against the old route", () => {
  it("gives every fixture and a generated session exactly the old route's tree", () => {
    const folder = path.join(lib.dir, "fixtures");
    const names = fixtureNames(fixturesDir());
    for (const name of names) copyFixture(name, folder);
    importPath(lib.db, folder);
    const generated = importText("generated.jsonl", generateSession(3000, { seed: 7 }).text);
    const ids = listSessionRows(lib.db).map((row) => row.id);
    expect(ids.length).toBeGreaterThan(names.length);
    expect(ids).toContain(generated);
    let nodes = 0;
    for (const id of ids) {
      const old = loadSessionTreeReferenceWire(lib.db, id);
      expect(loadSessionTree(lib.db, id)).toEqual(old);
      // Again, with the facts kept from the first load.
      expect(loadSessionTree(lib.db, id)).toEqual(old);
      nodes += old.nodes.length;
    }
    expect(nodes).toBeGreaterThan(4000);
  });

  it("gives hostile sessions (orphans, duplicate ids, cycles, labels) with archived and pruned entries the old route's tree", () => {
    for (const seed of [4, 5]) {
      const text = hostileSessionText(3000, seed);
      const sessionId = importText(`hostile-${seed}.jsonl`, text);
      const sid = sidOf(sessionId);
      const before = loadSessionTreeReferenceWire(lib.db, sessionId);
      // An archived branch (its root and all below it), and a pruned tool output.
      const branch = before.nodes.find((node) => node.parentId !== null && node.line > 1500 && node.kind === "user");
      if (!branch) throw new Error("no branch to archive");
      setArchived(lib.db, sid, branch.id, true);
      const tool = before.nodes.find((node) => node.kind === "toolResult" && node.line > 500) as TreeNodeDto;
      const line = text.split("\n").find((l) => l.includes(`"id":"${tool.id}"`)) as string;
      const entry = JSON.parse(line) as SessionEntry & { message: Record<string, unknown> };
      const pruned = { ...entry, message: { ...entry.message, content: [{ type: "text", text: "[pruned]" }], prunedAt: 9 } };
      expect(replaceEntryJson(lib.db, sid, tool.id, JSON.stringify(pruned), 2)).toBe(true);

      const old = loadSessionTreeReferenceWire(lib.db, sessionId);
      expect(old.problems.length).toBeGreaterThan(20);
      expect(old.nodes.filter((node) => node.archived).length).toBeGreaterThan(0);
      expect(old.nodes.filter((node) => node.label !== undefined).length).toBeGreaterThan(5);
      expect(loadSessionTree(lib.db, sessionId)).toEqual(old);
      // Again, with the facts kept from the first load.
      expect(loadSessionTree(lib.db, sessionId)).toEqual(old);
    }
  });

  it("shows a pruned tool output's new text and never reads its original", () => {
    type Line = SessionEntry & { message?: { role?: string } };
    const lines = generateSession(400, { seed: 3 }).text.split("\n");
    const at = lines.findIndex((line) => line.includes('"role":"toolResult"'));
    const target = JSON.parse(lines[at] as string) as Line;
    // A 5.4 MB tool output (a read of a big log), then pruned: its text is the original now.
    const big = {
      ...target,
      message: { ...target.message, content: [{ type: "text", text: "log line\n".repeat(600_000) }] },
    };
    lines[at] = JSON.stringify(big);
    const text = lines.join("\n");
    const sessionId = importText("pruned.jsonl", text);
    const notice = {
      ...target,
      message: { ...target.message, content: [{ type: "text", text: "[pruned]" }], prunedAt: 1 },
    };
    expect(replaceEntryJson(lib.db, sidOf(sessionId), target.id, JSON.stringify(notice), 2)).toBe(true);

    const old = loadSessionTreeReferenceWire(lib.db, sessionId);
    const tree = loadSessionTree(lib.db, sessionId);
    expect(tree).toEqual(old);
    const node = tree.nodes.find((n) => n.id === target.id);
    expect(node?.pruned).toBe(true);
    expect(node?.text).toMatch(/: \[pruned\]$/);

    const stored = charsRead(lib.db, () => loadSessionTreeReference(lib.db, sessionId));
    const read = charsRead(lib.db, () => loadSessionTree(lib.db, sessionId));
    // The old route read the 5.4 MB original along with every entry; the route reads the entries only.
    expect(stored - read).toBeGreaterThan(5_000_000);
    expect(read).toBeLessThan(text.length - 5_000_000);
  });
});

describe("session:tree on the wire", () => {
  it("sends snippets cut where a node shows them, marked with `cut` instead of a \"…\", and `hasText` only when false", () => {
    const generated = generateSession(3000, { seed: 5 });
    const id = importText("ascii.jsonl", generated.text);
    expect([...generated.text].every((char) => char.charCodeAt(0) <= 0xff)).toBe(true);
    const tree = loadSessionTree(lib.db, id);
    const old = loadSessionTreeReference(lib.db, id);
    let cut = 0;
    for (const [at, node] of tree.nodes.entries()) {
      const before = old.nodes[at]?.text as string;
      expect(node.text.length).toBeLessThanOrEqual(TREE_SNIPPET_CHARS);
      expect(before.startsWith(node.text) || before.slice(0, -1).startsWith(node.text.slice(0, 199))).toBe(true);
      expect(node.cut === true).toBe(before.length > TREE_SNIPPET_CHARS);
      if (node.cut) cut++;
      else expect("cut" in node).toBe(false);
    }
    expect(cut).toBeGreaterThan(100);
    const assistants = tree.nodes.filter((node) => node.kind === "assistant");
    expect(assistants.length).toBeGreaterThan(100);
    const oldById = new Map(old.nodes.map((node) => [node.id, node]));
    for (const node of assistants) expect(node.hasText).toBe(oldById.get(node.id)?.hasText ? undefined : false);
    // The route adds no "…" of its own (one non-Latin-1 character makes V8 build the whole JSON
    // two-byte); the only ones left are the entries' text, here assistants' tool calls "read(…)".
    const wire = JSON.stringify(tree);
    const rest = wire.replaceAll("(…", "");
    const wide = [...rest].findIndex((char) => char.charCodeAt(0) > 0xff);
    expect(wide === -1 ? "" : rest.slice(Math.max(0, wide - 80), wide + 20)).toBe("");
    // 120 characters instead of 200 on most nodes: about a fifth of the answer.
    expect(wire.length).toBeLessThan(0.85 * JSON.stringify(old).length);
  });
});

/** JSON.parse calls while `run` runs. */
function parsesDuring(run: () => void): number {
  const parse = vi.spyOn(JSON, "parse");
  try {
    run();
    return parse.mock.calls.length;
  } finally {
    parse.mockRestore();
  }
}

describe("session:tree reloaded", () => {
  it("parses only the entries it has not seen, and follows prunes, restores and appends", () => {
    const generated = generateSession(2000, { seed: 11 });
    const file = path.join(lib.dir, "live.jsonl");
    fs.writeFileSync(file, generated.text);
    const sessionId = importPath(lib.db, file).files[0]?.sessionId as string;
    const sid = sidOf(sessionId);
    const expectOld = () => {
      const tree = loadSessionTree(lib.db, sessionId);
      expect(tree).toEqual(loadSessionTreeReferenceWire(lib.db, sessionId));
      return tree;
    };
    const first = parsesDuring(() => expectOld());
    expect(first).toBeGreaterThan(2 * 2000);
    // The second load parses the label entries (structural index), the problems and the
    // reference's entries; the route's own entries are not parsed again.
    const reference = parsesDuring(() => loadSessionTreeReference(lib.db, sessionId));
    const again = parsesDuring(() => loadSessionTree(lib.db, sessionId));
    expect(again).toBeLessThan(50);
    expect(reference - again).toBeGreaterThan(1900);

    // Pruning rewrites an entry's JSON: its node changes, then changes back on restore.
    const target = generated.text.split("\n").find((line) => line.includes('"role":"toolResult"')) as string;
    const entry = JSON.parse(target) as SessionEntry & { message: Record<string, unknown> };
    const pruned = {
      ...entry,
      message: { ...entry.message, content: [{ type: "text", text: "[pruned]" }], prunedAt: 5 },
    };
    replaceEntryJson(lib.db, sid, entry.id, JSON.stringify(pruned), 2);
    expect(expectOld().nodes.find((n) => n.id === entry.id)?.pruned).toBe(true);
    const pk = lib.db
      .prepare("SELECT pk FROM entries WHERE sid = ? AND id = ?")
      .pluck()
      .get(sid, entry.id) as number;
    restoreEntryJson(lib.db, pk, 40);
    expect(expectOld().nodes.find((n) => n.id === entry.id)?.pruned).toBeUndefined();

    // The agent appends: the new entries get nodes, the old ones stay as they were.
    const leaf = generated.deepestLeafId;
    const appended = [
      {
        type: "message",
        id: "appended1",
        parentId: leaf,
        timestamp: "2027-01-01T00:00:00.000Z",
        message: { role: "user", content: "one more  question" },
      },
      {
        type: "label",
        id: "appended2",
        parentId: "appended1",
        timestamp: "2027-01-01T00:00:01.000Z",
        targetId: leaf,
        label: "before",
      },
    ];
    fs.appendFileSync(file, `${appended.map((e) => JSON.stringify(e)).join("\n")}\n`);
    importPath(lib.db, file);
    const tree = expectOld();
    expect(tree.nodes.find((n) => n.id === "appended1")?.text).toBe("one more question");
    expect(tree.nodes.find((n) => n.id === leaf)?.label).toBe("before");
  });

  it(`keeps the facts of the last ${CACHED_SESSIONS} sessions loaded`, () => {
    const ids = [1, 2, 3].map((seed) =>
      importText(`s${seed}.jsonl`, generateSession(300, { seed, sessionId: `session-${seed}` }).text),
    );
    for (const id of ids) loadSessionTree(lib.db, id);
    // The first session was dropped; the last two are kept.
    expect(parsesDuring(() => loadSessionTree(lib.db, ids[2] as string))).toBeLessThan(20);
    expect(parsesDuring(() => loadSessionTree(lib.db, ids[1] as string))).toBeLessThan(20);
    expect(parsesDuring(() => loadSessionTree(lib.db, ids[0] as string))).toBeGreaterThan(300);
    for (const id of ids) expect(loadSessionTree(lib.db, id)).toEqual(loadSessionTreeReferenceWire(lib.db, id));
  });
});

/** entrySnippetCut is the folded text's first `width` characters, and says whether it goes on. */
function expectCutSnippet(entry: SessionEntry, width: number): void {
  const folded = flatten(entryText(entry), Number.POSITIVE_INFINITY);
  expect(entrySnippetCut(entry, width)).toEqual({ text: folded.slice(0, width), cut: folded.length > width });
}

describe("entrySnippet", () => {
  const message = (m: Record<string, unknown>) =>
    ({ type: "message", id: "m", parentId: null, timestamp: "", message: m }) as unknown as SessionEntry;

  it("is flatten(entryText(entry)) of every fixture entry and of pieces split anywhere", () => {
    let entries = 0;
    for (const name of fixtureNames(fixturesDir())) {
      for (const line of fs.readFileSync(path.join(fixturesDir(), name), "utf8").split("\n")) {
        let entry: SessionEntry;
        try {
          entry = JSON.parse(line) as SessionEntry;
        } catch {
          continue;
        }
        for (const width of [1, 60, 200]) {
          expect(entrySnippet(entry, width)).toBe(flatten(entryText(entry), width));
          expectCutSnippet(entry, width);
        }
        entries++;
      }
    }
    expect(entries).toBeGreaterThan(1000);
    const cases = [
      message({
        role: "toolResult",
        toolName: "bash",
        content: [{ type: "text", text: `  ${"ab \n".repeat(300)}` }],
      }),
      message({
        role: "assistant",
        content: [
          { type: "thinking", thinking: "x" },
          { type: "text", text: "   " },
          { type: "toolCall", name: "read" },
          { type: "text", text: " \n".repeat(500) },
          { type: "image" },
        ],
      }),
      message({ role: "user", content: "\t".repeat(399) + "z".repeat(5) }),
      message({
        role: "user",
        content: [
          { type: "text", text: "a".repeat(199) },
          { type: "text", text: "b" },
        ],
      }),
      {
        type: "custom_message",
        customType: "note",
        content: [{ type: "text", text: "w ".repeat(3000) }],
      } as unknown as SessionEntry,
    ];
    for (const entry of cases)
      for (const width of [1, 2, 100, 199, 200, 201, 1000]) {
        expect(entrySnippet(entry, width)).toBe(flatten(entryText(entry), width));
        expectCutSnippet(entry, width);
      }
  });

  it("reads only the beginning of a tool output split into a million blocks", () => {
    const content = Array.from({ length: 1_000_000 }, () => ({ type: "text", text: "word" }));
    const entry = message({ role: "toolResult", toolName: "read", content });
    const join = vi.spyOn(Array.prototype, "join");
    const snippet = entrySnippet(entry, 200);
    const joined = Math.max(0, ...join.mock.contexts.map((list) => (list as unknown[]).length));
    join.mockRestore();
    expect(snippet).toBe(flatten(entryText(entry), 200));
    // Only pieces of the first few hundred chars were ever joined, not the million blocks.
    expect(joined).toBeLessThan(1000);
  });
});
