// The export dialog (renderer/src/store/export-slice.ts) against a scripted contract: "Resume at
// the view leaf" sends the view leaf, also when it is before the first entry (null), and sends
// none when the option is off.
import { beforeEach, describe, expect, it, vi } from "vitest";

const calls: { channel: string; input: Record<string, unknown> }[] = [];

vi.mock("../../renderer/src/api.ts", async () => {
  const { scriptedApi } = await import("../helpers/scripted-api.ts");
  return scriptedApi(
    { "session:export": () => ({ lines: 3, path: "/tmp/out.jsonl", resumeEntryId: "m1" }) },
    { record: (channel, input) => calls.push({ channel, input: input as Record<string, unknown> }) },
  );
});

interface ExportState {
  exportOptions: { resumeAtLeaf: boolean; withoutArchived: boolean; originals: boolean; outPath: string };
  setExportOptions(patch: Record<string, unknown>): void;
  runExport(confirmLiveFolder?: boolean): Promise<void>;
}
// Through a variable so the node type-check (no DOM lib) does not follow the renderer's store.
const storeModule = "../../renderer/src/store/index.ts";
const { useCanopy } = (await import(storeModule)) as {
  useCanopy: { getState(): ExportState; setState(partial: Record<string, unknown>): void };
};

function openOn(viewLeafId: string | null): void {
  useCanopy.setState({
    selectedSessionId: "s1",
    tree: { sessionId: "s1", viewLeafId, nodes: [], problems: [] },
    exportOptions: { resumeAtLeaf: true, withoutArchived: false, originals: false, outPath: "/tmp/out.jsonl" },
  });
}

beforeEach(() => {
  calls.length = 0;
});

describe("export dialog", () => {
  it("resumes at the view leaf", async () => {
    openOn("a9");
    await useCanopy.getState().runExport();
    expect(calls[0]?.input).toMatchObject({ sessionId: "s1", leafId: "a9" });
  });

  it("resumes before the first entry when the view leaf is there (null)", async () => {
    openOn(null);
    await useCanopy.getState().runExport();
    expect(calls[0]?.input).toHaveProperty("leafId", null);
  });

  it("sends no leaf when resuming at the view leaf is off", async () => {
    openOn(null);
    useCanopy.getState().setExportOptions({ resumeAtLeaf: false });
    await useCanopy.getState().runExport();
    expect(calls[0]?.input).not.toHaveProperty("leafId");
  });

  it("asks for the pruned tool outputs as they were only when that option is on", async () => {
    openOn("a9");
    await useCanopy.getState().runExport();
    expect(calls[0]?.input).not.toHaveProperty("originals");
    useCanopy.getState().setExportOptions({ originals: true });
    await useCanopy.getState().runExport();
    expect(calls[1]?.input).toMatchObject({ sessionId: "s1", originals: true });
  });
});
