// The CLI's text for an import report: one that says it was cancelled (the ImportReport DTO is
// the app's too, whose imports can be cancelled), and many unchanged files counted on one line.
import { describe, expect, it } from "vitest";
import type { ImportReport } from "../../core/api/dto.ts";
import { renderImportReport } from "../../main/cli/render.ts";
import { mergeImportReports } from "../../core/api/import-report.ts";

const base: ImportReport = mergeImportReports([]);

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

  it("lists unchanged files one by one up to 20, and counts more on one line", () => {
    const files = (count: number, status: "unchanged" | "imported") =>
      Array.from({ length: count }, (_, i) => ({
        path: `/s/${status}-${i}.jsonl`,
        sessionId: `${status}-${i}`,
        status,
        entriesAdded: status === "imported" ? 1 : 0,
        malformedLines: 0,
        problems: [],
      }));
    const few = renderImportReport({ ...base, files: files(20, "unchanged"), unchanged: 20 });
    expect(few.split("\n")).toHaveLength(21);
    const many = renderImportReport({
      ...base,
      files: [...files(300, "unchanged"), ...files(2, "imported")],
      unchanged: 300,
      imported: 2,
      entriesAdded: 2,
    });
    expect(many.split("\n")).toEqual([
      "302 files: 2 imported, 0 updated, 300 unchanged, 0 skipped, 0 failed; 2 entries added (0.0 MB in 0 ms)",
      "  imported  imported-0 /s/imported-0.jsonl",
      "  imported  imported-1 /s/imported-1.jsonl",
      "  unchanged 300 files (--json lists them)",
    ]);
  });
});
