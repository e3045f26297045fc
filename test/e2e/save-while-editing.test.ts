// Enter in the entry's Label field, or in the session's title field, while another edit runs
// (Debian's Chromium, browser mode, bundled demo data): before, the press was ignored without a
// word (the label's Set label disabled, the title's save refused), the text left in the field.
// Now it waits its turn, as Ctrl+Z presses do: the field says it will be saved once the edit
// running is done, and it is. The first edit's request is held at the page (page.route) until
// the second Enter is pressed. Screenshots: test-artifacts/save-while-editing/.
import { mkdirSync } from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, it } from "vitest";
import type { SessionSummary, SessionTreeDto } from "../../core/api/dto.ts";
import type { BrowserMode } from "../../main/serve.ts";
import { apiCall } from "../helpers/browser-mode.ts";
import { openSessionShowingAll, poll, textOf } from "../helpers/canvas-page.ts";
import { artifactsDir } from "../helpers/chromium.ts";
import { demoSessionId, type E2eApp, startE2eApp } from "../helpers/e2e-app.ts";
import { holdRequests } from "../helpers/held-requests.ts";

const shots = path.join(artifactsDir(), "save-while-editing");
const STORE_TITLE = "Session store tree";

let app: E2eApp;
let mode: BrowserMode;
let page: Page;

const api = <T>(channel: string, input: unknown) => apiCall<T>(mode, channel, input);
const labelBox = () => page.getByRole("textbox", { name: "Label", exact: true });
const outcome = () => textOf(page.getByTestId("job-message"));
/** An edit runs: the edit buttons (Fork to new session among them) are disabled meanwhile. */
const editRunning = () =>
  page.getByTestId("edit-actions").getByRole("button", { name: "Fork to new session", exact: true }).isDisabled();

/** Holds the page's next call to `channel` until the returned function is called. */
const holdNext = (channel: string) => holdRequests(page, channel, { firstOnly: true });

beforeAll(async () => {
  mkdirSync(shots, { recursive: true });
  app = await startE2eApp("save-while-editing");
  ({ mode, page } = app);
});

afterAll(async () => {
  await app?.stop();
});

describe("Enter in a label or title field while an edit runs", () => {
  it("the label waits its turn, says so, and is set", async () => {
    const sessionId = await demoSessionId(mode, STORE_TITLE);
    await openSessionShowingAll(page, mode, sessionId);
    const leafId = (await api<SessionTreeDto>("session:tree", { sessionId })).viewLeafId as string;
    const labelOf = async () =>
      (await api<SessionTreeDto>("session:tree", { sessionId })).nodes.find((node) => node.id === leafId)?.label;
    await poll(() => textOf(page.getByTestId("edit-target"))).toContain(leafId.slice(0, 8));

    const release = await holdNext("edits:label");
    try {
      await labelBox().fill("first");
      await labelBox().press("Enter");
      await poll(editRunning).toBe(true);
      await labelBox().fill("second");
      await labelBox().press("Enter");
      await poll(() => textOf(page.getByTestId("label-waits"))).toBe("Set once the edit running now is done…");
      await page.screenshot({ path: path.join(shots, "01-label-waits.png") });
    } finally {
      await release();
    }
    await poll(labelOf).toBe("second");
    await poll(outcome).toBe(`Labelled ${leafId} “second”.`);
    await page.getByTestId("label-waits").waitFor({ state: "detached" });
  });

  it("the session title waits its turn, says so, and is saved", async () => {
    const sessionId = await demoSessionId(mode, STORE_TITLE);
    await openSessionShowingAll(page, mode, sessionId);
    const header = page.getByTestId("session-header");
    const title = async () =>
      (await api<SessionSummary[]>("library:list", {})).find((session) => session.id === sessionId)?.title;
    await header.getByRole("button", { name: "Rename", exact: true }).click();
    const titleBox = header.getByRole("textbox", { name: "Session title" });
    await titleBox.fill("Waited title");

    const release = await holdNext("edits:label");
    try {
      await labelBox().fill("third");
      await labelBox().press("Enter");
      await poll(editRunning).toBe(true);
      await titleBox.press("Enter");
      await poll(() => textOf(header.getByRole("status"))).toBe("Saved once the edit running now is done…");
      await page.screenshot({ path: path.join(shots, "02-title-waits.png") });
    } finally {
      await release();
    }
    await poll(title).toBe("Waited title");
    await poll(() => textOf(header.locator("h2"))).toBe("Waited title");
    await poll(outcome).toBe("Renamed the session “Waited title”.");
  });
});
