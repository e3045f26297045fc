// The branch dialog's instructions can replace the branch-summary prompt (SPEC D13: custom
// instructions are appended as "Additional focus", with an option to replace the prompt; the
// CLI's --replace-prompt), in Debian's Chromium through browser mode against a local fake
// OpenAI-compatible server: the request then carries the instructions and not the prompt, and a
// failed summary's Retry asks the same way.
// Screenshots: test-artifacts/branch-replace-prompt/.
import { mkdirSync } from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SessionTreeDto } from "../../core/api/dto.ts";
import { apiCall } from "../helpers/browser-mode.ts";
import { openSessionShowingAll, poll, textOf } from "../helpers/canvas-page.ts";
import { artifactsDir } from "../helpers/chromium.ts";
import type { E2eChatApp } from "../helpers/e2e-app.ts";
import type { FakeServer } from "../helpers/fake-openai-server.ts";
import { openMoveDialog, startBranchSummaryApp } from "../helpers/job-page.ts";

const shots = path.join(artifactsDir(), "branch-replace-prompt");
const INSTRUCTIONS = "List only the file names touched, one per line.";
/** A line of prompts/branch-summary.md: present when the prompt is sent. */
const PROMPT_LINE = "Summarize it so that, on returning to it later, the work can be picked up again.";

let app: E2eChatApp;
let page: Page;
let fake: FakeServer;
let sessionId: string;

const outcome = () => textOf(page.getByTestId("job-message"));
/** The text of the last chat request's user message. */
const lastPrompt = () => {
  const chats = fake.requests.filter((request) => request.path === "/v1/chat/completions");
  const body = chats.at(-1)?.body as { messages?: { role: string; content: unknown }[] } | undefined;
  return JSON.stringify(body?.messages?.at(-1)?.content ?? null);
};

beforeAll(async () => {
  mkdirSync(shots, { recursive: true });
  ({ app, sessionId } = await startBranchSummaryApp(
    "branch-replace",
    {
      key: { env: "CANOPY_E2E_BRANCH_REPLACE_KEY", value: "sk-e2e-branch-replace" },
      model: { id: "fake-branch-replace", contextWindow: 128000 },
    },
    { id: "0195f0c2-2222-7000-8000-00000000b1a6", cwd: "/work/replace", file: "branch-replace.jsonl" },
  ));
  ({ page, fake } = app);
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

describe("branch summary instructions that replace the prompt", () => {
  it("sends the instructions instead of the branch prompt, also when retried", async () => {
    await openSessionShowingAll(page, app.mode, sessionId);
    fake.enqueue({ type: "error", status: 503, body: { error: { message: "Overloaded" } } });
    const dialog = await openMoveDialog(page, "a1");
    await dialog.getByRole("button", { name: "Summarize with instructions…" }).click();
    await page.locator("#branch-instructions").fill(INSTRUCTIONS);
    await dialog.getByRole("checkbox", { name: "Use them instead of the branch-summary prompt" }).check();
    await page.screenshot({ path: path.join(shots, "01-replace-checked.png") });
    await dialog.getByRole("button", { name: "Summarize with these instructions" }).click();

    await poll(outcome).toMatch(/^Branch summary failed: /);
    expect(lastPrompt()).toContain(INSTRUCTIONS);
    expect(lastPrompt()).not.toContain(PROMPT_LINE);
    expect(lastPrompt()).not.toContain("Additional focus");

    fake.enqueue({ type: "reply", text: "src/parser.ts" });
    await page.getByRole("button", { name: "Retry the branch summary" }).click();
    await poll(outcome).toMatch(/^Moved to a1's branch with branch summary \S+\.$/);
    expect(lastPrompt()).toContain(INSTRUCTIONS);
    expect(lastPrompt()).not.toContain(PROMPT_LINE);
    const tree = await apiCall<SessionTreeDto>(app.mode, "session:tree", { sessionId });
    expect(tree.nodes.find((node) => node.id === tree.viewLeafId)?.type).toBe("branch_summary");
    await page.screenshot({ path: path.join(shots, "02-summarized.png") });
  });

  it("without the box ticked, the instructions are an additional focus after the prompt", async () => {
    await openSessionShowingAll(page, app.mode, sessionId);
    fake.enqueue({ type: "reply", text: "Back on the first branch." });
    const dialog = await openMoveDialog(page, "a2");
    await dialog.getByRole("button", { name: "Summarize with instructions…" }).click();
    await page.locator("#branch-instructions").fill(INSTRUCTIONS);
    expect(await dialog.getByRole("checkbox", { name: "Use them instead of the branch-summary prompt" }).isChecked()).toBe(false);
    await dialog.getByRole("button", { name: "Summarize with these instructions" }).click();
    await poll(outcome).toMatch(/^Moved to a2's branch with branch summary \S+\.$/);
    expect(lastPrompt()).toContain(PROMPT_LINE);
    expect(lastPrompt()).toContain(`Additional focus: ${INSTRUCTIONS}`);
  });
});
