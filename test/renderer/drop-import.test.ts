// Files dropped on the desktop app's window (library slice importDropped, against a scripted
// contract): the notice says what each dropped item came to — a file that is no session, or one
// that could not be read, is named with why, even when another item dropped with it was imported.
import { beforeEach, describe, expect, it } from "vitest";
import { vi } from "vitest";

type Answer = (input: { path: string }) => unknown;
const answers = new Map<string, Answer>();

vi.mock("../../renderer/src/api.ts", async () => {
  const { scriptedApi } = await import("../helpers/scripted-api.ts");
  return scriptedApi({
    "library:import": (input: { path: string }) => {
      const answer = answers.get(input.path);
      if (!answer) throw new Error(`unexpected import of ${input.path}`);
      return answer(input);
    },
    "library:list": () => [],
  });
});

interface DropState {
  notice: { level: string; message: string } | null;
  lastImport: { files: { path: string }[]; imported: number; skipped: number } | null;
  importError: string | null;
  selectedSessionId: string | null;
  importDropped(paths: readonly string[], notOnDisk: number): Promise<void>;
  selectSession(sessionId: string | null): Promise<void>;
}
// Imported through a variable so the node type-check (no DOM lib) does not follow the store.
const storeModule = "../../renderer/src/store/index.ts";
const { useCanopy } = (await import(storeModule)) as {
  useCanopy: { getState(): DropState; setState(state: Partial<DropState>): void };
};

type Status = "imported" | "updated" | "unchanged" | "skipped" | "failed";
/** The report of importing one file. */
function oneFile(path: string, status: Status, reason?: string) {
  const count = (s: Status) => (status === s ? 1 : 0);
  return {
    files: [
      {
        path,
        sessionId: status === "skipped" || status === "failed" ? null : `id-${path}`,
        status,
        entriesAdded: status === "imported" ? 10 : 0,
        malformedLines: 0,
        problems: [],
        ...(reason ? { reason } : {}),
      },
    ],
    imported: count("imported"),
    updated: count("updated"),
    unchanged: count("unchanged"),
    skipped: count("skipped"),
    failed: count("failed"),
    entriesAdded: status === "imported" ? 10 : 0,
    bytesRead: 100,
    durationMs: 1,
    cancelled: false,
    roots: [path],
  };
}

beforeEach(() => {
  answers.clear();
  useCanopy.setState({ notice: null, lastImport: null, importError: null });
  // Opening an imported file loads its tree: not what these tests look at.
  useCanopy.setState({ selectSession: async () => undefined });
});

describe("dropping files on the window", () => {
  it("says so when all of them were imported", async () => {
    answers.set("/d/a.jsonl", () => oneFile("/d/a.jsonl", "imported"));
    answers.set("/d/b.jsonl", () => oneFile("/d/b.jsonl", "imported"));
    await useCanopy.getState().importDropped(["/d/a.jsonl", "/d/b.jsonl"], 0);
    expect(useCanopy.getState().notice).toEqual({ level: "info", message: "Imported 2 dropped items." });
  });

  it("names a dropped file that is no session, instead of calling it imported", async () => {
    answers.set("/d/notes.txt", () =>
      oneFile("/d/notes.txt", "skipped", "no line of the file is valid JSON"),
    );
    await useCanopy.getState().importDropped(["/d/notes.txt"], 0);
    const notice = useCanopy.getState().notice;
    expect(notice?.level).toBe("error");
    expect(notice?.message).not.toMatch(/^Imported/);
    expect(notice?.message).toContain("notes.txt: no line of the file is valid JSON");
  });

  it("names a file that could not be read even when the file dropped after it was imported", async () => {
    answers.set("/d/gone.jsonl", () => {
      throw new Error("No such file or folder: /d/gone.jsonl");
    });
    answers.set("/d/notes.txt", () => oneFile("/d/notes.txt", "skipped", "line 1 is not a session header"));
    answers.set("/d/a.jsonl", () => oneFile("/d/a.jsonl", "imported"));
    await useCanopy.getState().importDropped(["/d/gone.jsonl", "/d/notes.txt", "/d/a.jsonl"], 1);
    const { notice, lastImport, importError } = useCanopy.getState();
    expect(notice?.level).toBe("error");
    expect(notice?.message).toContain("1 imported");
    expect(notice?.message).toContain("gone.jsonl: No such file or folder");
    expect(notice?.message).toContain("notes.txt: line 1 is not a session header");
    expect(notice?.message).toContain("1 not on disk");
    // The import form shows every dropped file's outcome, not only the last one's.
    expect(lastImport?.files.map((file) => file.path)).toEqual(["/d/notes.txt", "/d/a.jsonl"]);
    expect(importError).toContain("gone.jsonl: No such file or folder");
  });
});
