/**
 * Several import reports as one (a scan of several folders, the files dropped on the window
 * together): the files of all, the figures summed.
 */
import type { ImportReport } from "./dto.ts";

/** One report for several imports (an empty one for none); `roots` are left to the caller. */
export function mergeImportReports(reports: readonly ImportReport[]): ImportReport {
  const sum = (pick: (r: ImportReport) => number) => reports.reduce((total, r) => total + pick(r), 0);
  return {
    files: reports.flatMap((r) => r.files),
    imported: sum((r) => r.imported),
    updated: sum((r) => r.updated),
    unchanged: sum((r) => r.unchanged),
    skipped: sum((r) => r.skipped),
    failed: sum((r) => r.failed),
    entriesAdded: sum((r) => r.entriesAdded),
    bytesRead: sum((r) => r.bytesRead),
    durationMs: sum((r) => r.durationMs),
    cancelled: reports.some((r) => r.cancelled),
  };
}
