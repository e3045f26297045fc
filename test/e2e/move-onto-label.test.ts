// Moving the view leaf onto a label entry Canopy wrote (Debian's Chromium, browser mode, bundled
// demo data, every entry shown): Canopy hangs its label entries below the file's last entry,
// whichever entry they label, so the view leaf then sits there — below that last entry, not at
// the entry labelled. Before, the outcome line said only "Moved to <the label entry's id>."; it now
// says which entry the label is of and the entry the view leaf is below, where the LLM view ends.
// Screenshots: test-artifacts/move-onto-label/.
import { mkdirSync } from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EditResultDto, SessionTreeDto } from "../../core/api/dto.ts";
import type { BrowserMode } from "../../main/serve.ts";
import { apiCall } from "../helpers/browser-mode.ts";
import { openSessionShowingAll, poll, textOf } from "../helpers/canvas-page.ts";
import { artifactsDir } from "../helpers/chromium.ts";
import { demoSessionId, type E2eApp, startE2eApp } from "../helpers/e2e-app.ts";

const shots = path.join(artifactsDir(), "move-onto-label");

let app: E2eApp;
let mode: BrowserMode;
let page: Page;

beforeAll(async () => {
  mkdirSync(shots, { recursive: true });
  app = await startE2eApp("move-onto-label");
  ({ mode, page } = app);
});

afterAll(async () => {
  await app?.stop();
});

describe("moving the view leaf onto a label entry", () => {
  it("the outcome line says which entry it labels and where the view leaf now is", async () => {
    const sessionId = await demoSessionId(mode, "Session store tree");
    const tree = () => apiCall<SessionTreeDto>(mode, "session:tree", { sessionId });
    const before = await tree();
    // An entry other than the file's last one: its label entry hangs below the last one.
    const labelled = before.nodes.find((node) => node.type === "message" && node.kind === "user")?.id as string;
    const fileLeaf = before.fileLeafId as string;
    expect(labelled).not.toBe(fileLeaf);
    const label = await apiCall<EditResultDto>(mode, "edits:label", { sessionId, targetId: labelled, label: "start" });
    const entryId = label.entryId as string;
    expect((await tree()).nodes.find((node) => node.id === entryId)?.parentId).toBe(fileLeaf);
    await openSessionShowingAll(page, mode, sessionId);

    await page.locator(`.tree-node[data-entry-id="${entryId}"]`).focus();
    await page.keyboard.press("Enter");
    await poll(() => textOf(page.getByTestId("job-message"))).toBe(
      `Moved to ${entryId}, the label entry “start” of ${labelled}, below ${fileLeaf}: the LLM view ends with ${fileLeaf}.`,
    );
    expect((await tree()).viewLeafId).toBe(entryId);
    await page.screenshot({ path: path.join(shots, "01-moved-onto-label.png") });
  });
});
