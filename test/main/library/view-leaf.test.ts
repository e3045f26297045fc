// D14: Canopy's view leaf lives in the database (persists across re-open, never in the file);
// an export that must resume on a chosen leaf appends one invisible custom marker entry.

import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildSessionContext } from "../../../core/session/context.ts";
import { parseSessionText } from "../../../core/session/jsonl.ts";
import { buildTreeIndex } from "../../../core/session/tree.ts";
import { exportSession, exportSessionToFile, RESUME_CUSTOM_TYPE } from "../../../main/library/export.ts";
import { importPath } from "../../../main/library/import.ts";
import {
  getSessionSummary,
  getViewLeaf,
  listSessions,
  loadSessionEntries,
  resetViewLeaf,
  setViewLeaf,
} from "../../../main/library/load.ts";
import { StoreError } from "../../../main/store/errors.ts";
import { copyFixture, jsonLines, type Library, makeLibrary } from "./helpers.ts";

let lib: Library;
let id: string;
beforeEach(() => {
  lib = makeLibrary();
  id = importPath(lib.db, copyFixture("tree-02.jsonl", lib.dir)).files[0]?.sessionId ?? "";
});
afterEach(() => lib.cleanup());

/** Some entry that is not on the path of the file's last entry. */
function offPathLeaf(): string {
  const entries = loadSessionEntries(lib.db, id);
  const index = buildTreeIndex(entries);
  const last = entries.at(-1)?.id ?? "";
  const onPath = new Set(index.pathTo(last).map((e) => e.id));
  const tip = index.tips().find((e) => !onPath.has(e.id) && e.type === "message");
  if (!tip) throw new Error("fixture has no side branch");
  return tip.id;
}

describe("view leaf", () => {
  it("defaults to the file's last entry and persists a chosen leaf across re-open", () => {
    const entries = loadSessionEntries(lib.db, id);
    expect(getViewLeaf(lib.db, id)).toBe(entries.at(-1)?.id);
    const leaf = offPathLeaf();
    expect(setViewLeaf(lib.db, id, leaf).viewLeafId).toBe(leaf);
    lib.reopen();
    expect(getViewLeaf(lib.db, id)).toBe(leaf);
    expect(listSessions(lib.db).find((s) => s.id === id)?.viewLeafId).toBe(leaf);
    expect(getSessionSummary(lib.db, id).fileLeafId).toBe(entries.at(-1)?.id);
    expect(setViewLeaf(lib.db, id, null).viewLeafId).toBeNull();
    expect(getViewLeaf(lib.db, id)).toBeNull();
    expect(resetViewLeaf(lib.db, id).viewLeafId).toBe(entries.at(-1)?.id);
  });

  it("a leaf moved away stays while the agent appends; put back on the file's last entry, it follows the file again", () => {
    const file = copyFixture("tree-02.jsonl", lib.dir);
    let last = loadSessionEntries(lib.db, id).at(-1)?.id ?? "";
    const append = (entryId: string) => {
      const line = {
        type: "message",
        id: entryId,
        parentId: last,
        timestamp: "2026-12-05T00:00:00.000Z",
        message: { role: "user", content: `more from the agent ${entryId}`, timestamp: 1 },
      };
      fs.appendFileSync(file, `${JSON.stringify(line)}\n`);
      importPath(lib.db, file);
      last = entryId;
    };
    const leaf = offPathLeaf();
    setViewLeaf(lib.db, id, leaf);
    append("agent001");
    expect(getViewLeaf(lib.db, id)).toBe(leaf);
    expect(getSessionSummary(lib.db, id).fileLeafId).toBe("agent001");
    // Back on the file's last entry (as the agent sees it): following again.
    expect(setViewLeaf(lib.db, id, "agent001").viewLeafId).toBe("agent001");
    append("agent002");
    expect(getViewLeaf(lib.db, id)).toBe("agent002");
    lib.reopen();
    append("agent003");
    expect(getViewLeaf(lib.db, id)).toBe("agent003");
  });

  it("rejects unknown leaves and unknown sessions with coded errors", () => {
    expect(() => setViewLeaf(lib.db, id, "nope")).toThrow(StoreError);
    expect(() => setViewLeaf(lib.db, "missing", null)).toThrow(/No session/);
    try {
      getViewLeaf(lib.db, "missing");
    } catch (error) {
      expect((error as StoreError).code).toBe("not_found");
    }
  });
});

describe("export with a resume leaf (D14)", () => {
  it("appends one custom marker whose parent is the leaf, so the agent's last-line rule resumes there", () => {
    const leaf = offPathLeaf();
    const before = lib.db.prepare("SELECT count(*) FROM entries").pluck().get();
    const result = exportSession(lib.db, id, {
      leafId: leaf,
      now: () => new Date("2026-12-05T00:00:00.000Z"),
    });
    expect(lib.db.prepare("SELECT count(*) FROM entries").pluck().get()).toBe(before);
    const parsed = parseSessionText(result.text ?? "");
    const marker = parsed.entries.at(-1)?.entry;
    expect(marker).toEqual({
      type: "custom",
      id: result.resumeEntryId,
      parentId: leaf,
      timestamp: "2026-12-05T00:00:00.000Z",
      customType: RESUME_CUSTOM_TYPE,
      data: { leafId: leaf },
    });
    expect(result.resumeEntryId).toMatch(/^[0-9a-f]{8}$/);
    const entries = parsed.entries.map((e) => e.entry);
    expect(entries.filter((e) => e.id === result.resumeEntryId)).toHaveLength(1);
    // The agent takes the last line as leaf: its path is the chosen leaf's path plus the marker,
    // and the marker adds nothing to what the model sees.
    const resumed = buildSessionContext(entries);
    const chosen = buildSessionContext(entries, leaf);
    expect(resumed.path.slice(0, -1).map((e) => e.id)).toEqual(chosen.path.map((e) => e.id));
    expect(resumed.messages).toEqual(chosen.messages);
    expect(jsonLines(result.text ?? "").length).toBe(result.lines);
  });

  it("rejects an unknown leaf; writes files atomically", () => {
    expect(() => exportSession(lib.db, id, { leafId: "nope" })).toThrow(/no entry/);
    const out = path.join(lib.dir, "out", "export.jsonl");
    const result = exportSessionToFile(lib.db, id, out);
    expect(result.path).toBe(out);
    expect(result.text).toBeUndefined();
    expect(jsonLines(fs.readFileSync(out, "utf8"))).toEqual(jsonLines(exportSession(lib.db, id).text ?? ""));
    expect(fs.readdirSync(path.dirname(out))).toEqual(["export.jsonl"]);
  });
});
