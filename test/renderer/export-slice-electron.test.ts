// The export dialog in the desktop app (renderer/src/store/export-slice.ts, transport "electron")
// against a scripted contract: without a typed path it asks main's save dialog for one and exports
// to it (never the text over IPC); cancelling exports nothing; after a live-folder warning, "Export
// anyway" saves to the same place without asking again.
import { beforeEach, describe, expect, it, vi } from "vitest";

const calls: { channel: string; input: Record<string, unknown> }[] = [];
const dialogAnswers: (string | null)[] = [];
const exportAnswers: (() => unknown)[] = [];

vi.mock("../../renderer/src/api.ts", async () => {
  const { scriptedApi, ApiCallError } = await import("../helpers/scripted-api.ts");
  const api = scriptedApi(
    {
      "session:choose-export-path": () => ({ path: dialogAnswers.shift() ?? null }),
      "session:export": (input: { outPath?: string }) => {
        const next = exportAnswers.shift();
        return next ? next() : { lines: 3, path: input.outPath };
      },
    },
    { record: (channel, input) => calls.push({ channel, input: input as Record<string, unknown> }) },
  );
  return {
    ...api,
    transport: "electron" as const,
    exportForDownload: () => {
      throw new ApiCallError("unsupported", "no download in the desktop app");
    },
  };
});

interface ExportState {
  exportOpen: boolean;
  exportBusy: boolean;
  exportWarning: string | null;
  exportError: string | null;
  notice: { message: string } | null;
  exportOptions: { resumeAtLeaf: boolean; withoutArchived: boolean; originals: boolean; outPath: string };
  runExport(confirmLiveFolder?: boolean): Promise<void>;
}
// Through a variable so the node type-check (no DOM lib) does not follow the renderer's store.
const storeModule = "../../renderer/src/store/index.ts";
const { useCanopy } = (await import(storeModule)) as {
  useCanopy: { getState(): ExportState; setState(partial: Record<string, unknown>): void };
};
const { ApiCallError } = await import("../helpers/scripted-api.ts");

beforeEach(() => {
  calls.length = 0;
  dialogAnswers.length = 0;
  exportAnswers.length = 0;
  useCanopy.setState({
    selectedSessionId: "s1",
    tree: { sessionId: "s1", viewLeafId: "a9", nodes: [], problems: [] },
    exportOpen: true,
    exportWarning: null,
    exportError: null,
    notice: null,
    exportOptions: { resumeAtLeaf: true, withoutArchived: false, originals: false, outPath: "" },
  });
});

describe("export dialog in the desktop app", () => {
  it("saves where the save dialog says instead of downloading the text", async () => {
    dialogAnswers.push("/home/u/saved.jsonl");
    await useCanopy.getState().runExport();
    expect(calls).toEqual([
      { channel: "session:choose-export-path", input: { sessionId: "s1" } },
      { channel: "session:export", input: { sessionId: "s1", leafId: "a9", outPath: "/home/u/saved.jsonl" } },
    ]);
    const state = useCanopy.getState();
    expect(state.exportOpen).toBe(false);
    expect(state.notice?.message).toContain("as /home/u/saved.jsonl");
  });

  it("exports nothing when the save dialog is cancelled, and leaves the export dialog as it was", async () => {
    dialogAnswers.push(null);
    await useCanopy.getState().runExport();
    expect(calls.map((c) => c.channel)).toEqual(["session:choose-export-path"]);
    const state = useCanopy.getState();
    expect(state).toMatchObject({ exportOpen: true, exportBusy: false, exportError: null, notice: null });
    expect(state.exportOptions.outPath).toBe("");
  });

  it("after a live-folder warning, exports anyway to the chosen place without asking again", async () => {
    dialogAnswers.push("/agent/sessions/copy.jsonl");
    exportAnswers.push(() => {
      throw new ApiCallError("live_source", "The agent is still writing a file in that folder.");
    });
    await useCanopy.getState().runExport();
    expect(useCanopy.getState().exportWarning).toContain("still writing");
    await useCanopy.getState().runExport(true);
    expect(calls.map((c) => c.channel)).toEqual([
      "session:choose-export-path",
      "session:export",
      "session:export",
    ]);
    expect(calls[2]?.input).toMatchObject({ outPath: "/agent/sessions/copy.jsonl", confirmLiveFolder: true });
    expect(useCanopy.getState().exportOpen).toBe(false);
  });

  it("uses a typed path as it is, with no dialog", async () => {
    useCanopy.setState({
      exportOptions: {
        resumeAtLeaf: false,
        withoutArchived: false,
        originals: false,
        outPath: " /tmp/x.jsonl ",
      },
    });
    await useCanopy.getState().runExport();
    expect(calls).toEqual([
      { channel: "session:export", input: { sessionId: "s1", outPath: "/tmp/x.jsonl" } },
    ]);
  });
});
