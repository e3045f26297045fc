// The library sidebar's pure helpers: grouping by project, sizes, ages and search snippets.
import { describe, expect, it } from "vitest";
import type { SessionSummary } from "../../core/api/dto.ts";
import {
  filterSessions,
  formatAge,
  formatSize,
  groupByProject,
  MATCH_END,
  MATCH_START,
  projectName,
  snippetPieces,
} from "../../renderer/src/features/library/library-format.ts";

function session(id: string, cwd: string, modified: string): SessionSummary {
  return {
    id,
    title: null,
    firstMessage: id,
    cwd,
    created: modified,
    modified,
    sourcePath: null,
    dialect: "pi",
    originalVersion: 3,
    entryCount: 1,
    messageCount: 1,
    compactionCount: 0,
    branchSummaryCount: 0,
    malformedCount: 0,
    problemCount: 0,
    fileSize: 10,
    viewLeafId: null,
    fileLeafId: null,
    isDemo: false,
  };
}

describe("library helpers", () => {
  it("groups sessions by cwd, newest group and newest session first", () => {
    const groups = groupByProject([
      session("a", "/home/dev/alpha", "2026-01-01T00:00:00.000Z"),
      session("b", "/home/dev/beta/", "2026-01-03T00:00:00.000Z"),
      session("c", "/home/dev/alpha", "2026-01-02T00:00:00.000Z"),
    ]);
    expect(groups.map((g) => [g.name, g.sessions.map((s) => s.id)])).toEqual([
      ["beta", ["b"]],
      ["alpha", ["c", "a"]],
    ]);
    expect(groups[1]?.modified).toBe("2026-01-02T00:00:00.000Z");
    expect(projectName("")).toBe("(no project)");
    expect(projectName("C:\\work\\proj")).toBe("proj");
  });

  it("filters by every word in the title, first message or folder, case-insensitive", () => {
    const all = [
      {
        ...session("a", "/home/u/work/api-server", "2026-01-01T00:00:00.000Z"),
        firstMessage: "Fix the flaky login test",
      },
      { ...session("b", "/home/u/proj-b", "2026-01-02T00:00:00.000Z"), title: "Login page redesign" },
      { ...session("c", "/home/u/notes", "2026-01-03T00:00:00.000Z"), firstMessage: "Write docs" },
    ];
    const ids = (filter: string) => filterSessions(all, filter).map((s) => s.id);
    expect(ids("")).toEqual(["a", "b", "c"]);
    expect(ids("LOGIN")).toEqual(["a", "b"]);
    expect(ids("login api-server")).toEqual(["a"]);
    expect(ids("notes")).toEqual(["c"]);
    expect(ids("nothing-like-it")).toEqual([]);
  });

  it("filters by the session's file name and by the start of its id (at least 4 characters)", () => {
    const all = [
      { ...session("d703a1a9-1b7b", "/p/one", "2026-01-01T00:00:00.000Z"), sourcePath: "/s/tree-01.jsonl", firstMessage: "hello" },
      { ...session("01a2361e-31af", "/p/two", "2026-01-02T00:00:00.000Z"), sourcePath: "C:\\s\\real-large.jsonl", firstMessage: "hello" },
      { ...session("d7ffffff-0000", "/p/three", "2026-01-03T00:00:00.000Z"), sourcePath: null, firstMessage: "hello" },
    ];
    const ids = (filter: string) => filterSessions(all, filter).map((s) => s.id);
    expect(ids("D703")).toEqual(["d703a1a9-1b7b"]);
    expect(ids("d7")).toEqual([]);
    expect(ids("1b7b")).toEqual([]);
    expect(ids("tree-01")).toEqual(["d703a1a9-1b7b"]);
    expect(ids("real-large")).toEqual(["01a2361e-31af"]);
    expect(ids("01a2361e one")).toEqual([]);
  });

  it("filters by a whole session id shorter than 4 characters (a hand-made file's `x1`)", () => {
    const all = [
      { ...session("x1", "/p/one", "2026-01-01T00:00:00.000Z"), sourcePath: "/s/half.jsonl", firstMessage: "" },
      { ...session("x12", "/p/two", "2026-01-02T00:00:00.000Z"), sourcePath: "/s/other.jsonl", firstMessage: "" },
    ];
    const ids = (filter: string) => filterSessions(all, filter).map((s) => s.id);
    expect(ids("X1")).toEqual(["x1"]);
    expect(ids("x12")).toEqual(["x12"]);
    expect(ids("x")).toEqual([]);
  });

  it("sorts inside and across projects by created, name or size", () => {
    const all = [
      {
        ...session("a", "/p/alpha", "2026-01-05T00:00:00.000Z"),
        created: "2026-01-01T00:00:00.000Z",
        title: "zeta",
        fileSize: 5,
      },
      {
        ...session("b", "/p/alpha", "2026-01-01T00:00:00.000Z"),
        created: "2026-01-04T00:00:00.000Z",
        title: "Alpha",
        fileSize: 50,
      },
      {
        ...session("c", "/p/beta", "2026-01-03T00:00:00.000Z"),
        created: "2026-01-02T00:00:00.000Z",
        title: "mid",
        fileSize: 500,
      },
    ];
    const order = (sort: Parameters<typeof groupByProject>[1]) =>
      groupByProject(all, sort).map((g) => [g.name, g.sessions.map((s) => s.id)]);
    expect(order("modified")).toEqual([
      ["alpha", ["a", "b"]],
      ["beta", ["c"]],
    ]);
    expect(order("created")).toEqual([
      ["alpha", ["b", "a"]],
      ["beta", ["c"]],
    ]);
    expect(order("name")).toEqual([
      ["alpha", ["b", "a"]],
      ["beta", ["c"]],
    ]);
    expect(order("size")).toEqual([
      ["beta", ["c"]],
      ["alpha", ["b", "a"]],
    ]);
    // A group's `modified` is its newest session's, whatever the order.
    expect(groupByProject(all, "size")[1]?.modified).toBe("2026-01-05T00:00:00.000Z");
  });

  it("formats sizes and ages", () => {
    expect(formatSize(512)).toBe("512 B");
    expect(formatSize(2048)).toBe("2.0 KB");
    expect(formatSize(50 * 1024 * 1024)).toBe("50 MB");
    const now = Date.parse("2026-01-10T12:00:00.000Z");
    expect(formatAge("2026-01-10T11:59:50.000Z", now)).toBe("just now");
    expect(formatAge("2026-01-10T11:55:00.000Z", now)).toBe("5 min ago");
    expect(formatAge("2026-01-10T09:00:00.000Z", now)).toBe("3 h ago");
    expect(formatAge("2026-01-08T12:00:00.000Z", now)).toBe("2 d ago");
    expect(formatAge("2025-06-01T00:00:00.000Z", now)).toBe("2025-06-01");
    expect(formatAge("garbage", now)).toBe("unknown");
  });

  it("splits snippets at the match markers, literal brackets untouched", () => {
    expect(
      snippetPieces(`…the [x] ${MATCH_START}parser${MATCH_END} fails on ${MATCH_START}parse${MATCH_END}`),
    ).toEqual([
      { text: "…the [x] ", match: false },
      { text: "parser", match: true },
      { text: " fails on ", match: false },
      { text: "parse", match: true },
    ]);
    expect(snippetPieces(`${MATCH_START}open`)).toEqual([{ text: "open", match: true }]);
    // A bidi override in session text would reorder the snippet: it is spelled out.
    expect(snippetPieces(`x\u202Efdp.exe ${MATCH_START}rep\u202Eort${MATCH_END}`)).toEqual([
      { text: "x\\u202efdp.exe ", match: false },
      { text: "rep\\u202eort", match: true },
    ]);
    expect(snippetPieces("")).toEqual([]);
  });
});
