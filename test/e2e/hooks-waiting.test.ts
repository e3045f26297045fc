// A compaction and a branch summary whose summary a hook writes (Debian's Chromium, browser mode,
// a model configured on the local fake OpenAI-compatible server): the running line says which
// hook runs, counting its seconds, and never that it waits for the model's first token — no
// model is asked (it used to count "Waiting for the model's first token… N s" all along).
import { writeFileSync } from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiCall } from "../helpers/browser-mode.ts";
import { openSessionShowingAll, poll, textOf } from "../helpers/canvas-page.ts";
import { demoSessionId, type E2eChatApp, startE2eChatApp } from "../helpers/e2e-app.ts";
import { openMoveDialog, recordRunningTexts, runningTexts } from "../helpers/job-page.ts";

/** A hook module that answers once the file `release-<event>` appears next to the library. */
const HOOK = `import { existsSync, rmSync } from "node:fs";
const released = async (event) => {
  const file = new URL(\`../release-\${event}\`, import.meta.url);
  while (!existsSync(file)) await new Promise((done) => setTimeout(done, 20));
  rmSync(file);
};
export default (canopy) => {
  canopy.on("session_before_compact", async ({ preparation }) => {
    await released("compact");
    return { compaction: { summary: "From the hook", firstKeptEntryId: preparation.firstKeptEntryId, tokensBefore: 1 } };
  });
  canopy.on("session_before_tree", async () => {
    await released("tree");
    return { summary: { summary: "Branch from the hook" } };
  });
};
`;

let app: E2eChatApp;
let page: Page;
let sessionId: string;

beforeAll(async () => {
  app = await startE2eChatApp(
    "hooks-waiting",
    { model: { id: "fake-hooks", contextWindow: 128000 } },
    { hooks: { "summary-hook.mjs": HOOK } },
  );
  ({ page } = app);
  await apiCall(app.mode, "settings:set", { key: "branchSummary.enabled", value: true });
  sessionId = await demoSessionId(app.mode, "Refactor the parser");
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

const release = (event: string) => writeFileSync(path.join(app.work, `release-${event}`), "");

describe("a summary written by a hook", () => {
  it("a compaction's running line names the hook and counts its seconds, never a wait for the model", async () => {
    await openSessionShowingAll(page, app.mode, sessionId);
    await page.getByRole("button", { name: "Compact…" }).click();
    await page.getByTestId("compaction-plan").waitFor();
    await recordRunningTexts(page);
    await page.getByRole("button", { name: "Run compaction" }).click();
    const line = page.getByTestId("hooks-at-work");
    await poll(() => textOf(line)).toBe(
      "The session_before_compact hook summary-hook.mjs is running; it may write the summary itself… 1 s",
    );
    release("compact");
    await poll(() => textOf(page.getByTestId("job-message"))).toMatch(/^Compaction \S+ added/);
    const texts = await runningTexts(page);
    expect(texts.length).toBeGreaterThan(0);
    for (const text of texts) expect(text).not.toContain("model's first token");
    expect(app.fake.requests).toEqual([]);
  });

  it("so does a branch summary's", async () => {
    await openSessionShowingAll(page, app.mode, sessionId);
    await recordRunningTexts(page);
    const dialog = await openMoveDialog(page, "1088b732");
    await dialog.getByRole("button", { name: "Summarize", exact: true }).click();
    const line = page.getByTestId("hooks-at-work");
    await poll(() => textOf(line)).toBe(
      "The session_before_tree hook summary-hook.mjs is running; it may write the summary itself… 1 s",
    );
    release("tree");
    await poll(() => textOf(page.getByTestId("job-message"))).toMatch(/^Moved to 1088b732's branch with branch summary \S+\./);
    const texts = await runningTexts(page);
    expect(texts.length).toBeGreaterThan(0);
    for (const text of texts) expect(text).not.toContain("model's first token");
    expect(app.fake.requests).toEqual([]);
  });
});
