// Import and Scan agent folders used while the form's import runs (a click on the aria-disabled
// button, Enter in the path box): before, nothing visible happened. refuseDuringImport (library
// slice) puts one line saying what did nothing and why on the outcome line, leaves it as it is when
// used again, and takes it away once the import ends (a folder's import opens no session, which
// would have cleared it); with no import running it says nothing.
import { describe, expect, it, vi } from "vitest";

let answer: () => Promise<unknown> = async () => undefined;

vi.mock("../../renderer/src/api.ts", async () => {
  const { scriptedApi } = await import("../helpers/scripted-api.ts");
  return scriptedApi({ "library:import": () => answer(), "library:list": () => [] });
});

interface ImportState {
  importing: boolean;
  jobMessage: { kind: "ok" | "error"; text: string } | null;
  importPath(path: string): Promise<void>;
  refuseDuringImport(what: string): boolean;
}
// Imported through a variable so the node type-check (no DOM lib) does not follow the store.
const storeModule = "../../renderer/src/store/index.ts";
const { useCanopy } = (await import(storeModule)) as {
  useCanopy: { getState(): ImportState; setState(partial: Partial<ImportState>): void };
};

const REFUSED = "Import did nothing: an import is running: wait for it, or Cancel it (Escape).";

describe("Import and Scan agent folders while an import runs", () => {
  it("say why once, and the line goes when the import ends", async () => {
    expect(useCanopy.getState().refuseDuringImport("Import did nothing")).toBe(false);
    expect(useCanopy.getState().jobMessage).toBeNull();

    let finish!: (report: unknown) => void;
    answer = () => new Promise((resolve) => (finish = resolve));
    const running = useCanopy.getState().importPath("/tmp/folder");
    expect(useCanopy.getState().importing).toBe(true);

    expect(useCanopy.getState().refuseDuringImport("Import did nothing")).toBe(true);
    const first = useCanopy.getState().jobMessage;
    expect(first).toEqual({ kind: "error", text: REFUSED });
    useCanopy.getState().refuseDuringImport("Import did nothing");
    expect(useCanopy.getState().jobMessage).toBe(first); // left as it is, not set again

    const file = (name: string) => ({ path: `/tmp/folder/${name}`, status: "skipped", problems: [] });
    finish({
      files: [file("a.jsonl"), file("b.jsonl")],
      imported: 0,
      updated: 0,
      unchanged: 0,
      skipped: 2,
      failed: 0,
      entriesAdded: 0,
      cancelled: false,
    });
    await running;
    expect(useCanopy.getState().importing).toBe(false);
    expect(useCanopy.getState().jobMessage).toBeNull();
  });

  it("leave another outcome line alone when the import ends", async () => {
    let finish!: (report: unknown) => void;
    answer = () => new Promise((resolve) => (finish = resolve));
    const running = useCanopy.getState().importPath("/tmp/folder");
    useCanopy.setState({ jobMessage: { kind: "ok", text: "Labelled a1 “kept”." } });
    finish({
      files: [],
      imported: 0,
      updated: 0,
      unchanged: 0,
      skipped: 0,
      failed: 0,
      entriesAdded: 0,
      cancelled: false,
    });
    await running;
    expect(useCanopy.getState().jobMessage?.text).toBe("Labelled a1 “kept”.");
  });
});
