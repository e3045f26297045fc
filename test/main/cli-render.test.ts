// The CLI's text for an import report that says it was cancelled (the ImportReport DTO is the
// app's too, whose imports can be cancelled).
import { describe, expect, it } from "vitest";
import type { ImportReport } from "../../core/api/dto.ts";
import { renderImportReport } from "../../main/cli/render.ts";

const base: ImportReport = {
  files: [],
  imported: 0,
  updated: 0,
  unchanged: 0,
  skipped: 0,
  failed: 0,
  entriesAdded: 0,
  bytesRead: 0,
  durationMs: 0,
  cancelled: false,
};

describe("renderImportReport", () => {
  it("says a cancelled import stopped, with or without files", () => {
    expect(renderImportReport({ ...base, cancelled: true })).toBe(
      "Cancelled before any file was read: nothing imported.",
    );
    const file = {
      path: "/s/a.jsonl",
      sessionId: "a",
      status: "imported" as const,
      entriesAdded: 2,
      malformedLines: 0,
      problems: [],
    };
    const text = renderImportReport({
      ...base,
      files: [file],
      imported: 1,
      entriesAdded: 2,
      cancelled: true,
    });
    expect(text.split("\n")).toEqual([
      "1 file: 1 imported, 0 updated, 0 unchanged, 0 skipped, 0 failed; 2 entries added (0.0 MB in 0 ms)",
      "  imported  a /s/a.jsonl",
      "Cancelled: the files after these were not read.",
    ]);
    expect(renderImportReport({ ...base, files: [file], imported: 1 })).not.toContain("Cancelled");
  });
});
