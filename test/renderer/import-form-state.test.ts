// The import form's state (library slice importPath, against a scripted contract): an import
// that fails shows only its error, never the report of the import before it under that error.
import { describe, expect, it, vi } from "vitest";

let answer: () => Promise<unknown> = async () => undefined;

vi.mock("../../renderer/src/api.ts", async () => {
  const { scriptedApi } = await import("../helpers/scripted-api.ts");
  return scriptedApi({ "library:import": () => answer(), "library:list": () => [] });
});

interface ImportState {
  lastImport: { imported: number } | null;
  importError: string | null;
  importPath(path: string): Promise<void>;
}
// Imported through a variable so the node type-check (no DOM lib) does not follow the store.
const storeModule = "../../renderer/src/store/index.ts";
const { useCanopy } = (await import(storeModule)) as { useCanopy: { getState(): ImportState } };

describe("importing from the form", () => {
  it("a failed import shows its error alone, not the previous import's report", async () => {
    answer = async () => ({
      files: [{ path: "/tmp/a.jsonl", status: "skipped", problems: [] }],
      imported: 0,
      updated: 0,
      unchanged: 0,
      skipped: 1,
      failed: 0,
      entriesAdded: 0,
      cancelled: false,
    });
    await useCanopy.getState().importPath("/tmp/a.jsonl");
    expect(useCanopy.getState().lastImport).not.toBeNull();

    answer = async () => {
      throw new Error("No such file or folder: /tmp/missing");
    };
    await useCanopy.getState().importPath("/tmp/missing");
    expect(useCanopy.getState().importError).toBe("No such file or folder: /tmp/missing");
    expect(useCanopy.getState().lastImport).toBeNull();
  });
});
