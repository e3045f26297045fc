// "Plain text" in the LLM view's toolbar, in Debian's Chromium (browser mode): markdown the model
// receives is shown as it is sent — a link with its URL, ** and # kept, a reference definition,
// every space — instead of rendered; the choice stays after a reload, and unticking renders again.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ImportReport } from "../../core/api/dto.ts";
import { apiCall } from "../helpers/browser-mode.ts";
import { poll } from "../helpers/canvas-page.ts";
import { type E2eApp, startE2eApp } from "../helpers/e2e-app.ts";

const SENT = "# Plan\n\nRead **the parser** first: see [the docs](https://example.com/parser-docs).\n\n    indented  twice";

let app: E2eApp;
let sessionId: string;

beforeAll(async () => {
  app = await startE2eApp("llm-plain-text");
  const at = "2026-12-02T09:37:58.192Z";
  const lines = [
    { type: "session", version: 3, id: "plain-text-session", timestamp: at, cwd: "/tmp/plain" },
    { type: "message", id: "u1", parentId: null, timestamp: at, message: { role: "user", content: SENT } },
  ];
  const file = path.join(app.work, "plain.jsonl");
  writeFileSync(file, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
  const report = await apiCall<ImportReport>(app.mode, "library:import", { path: file });
  sessionId = report.files[0]?.sessionId as string;
});

afterAll(async () => {
  await app?.stop();
});

const body = () => app.page.locator('[data-testid=llm-view] li.message[data-entry-id="u1"] .message-body');
const plainBox = () => app.page.getByRole("checkbox", { name: "Plain text" });

async function open(): Promise<void> {
  await app.page.goto(`${app.mode.url}#/session/${encodeURIComponent(sessionId)}`);
  await body().waitFor();
}

describe("the LLM view's Plain text", () => {
  it("shows markdown as it is sent, and keeps the choice after a reload", async () => {
    await open();
    // Rendered by default: the link shows its text only, the heading is a heading.
    expect(await plainBox().isChecked()).toBe(false);
    expect(await body().locator("a").first().textContent()).toBe("the docs");
    expect(await body().textContent()).not.toContain("https://example.com/parser-docs");

    await plainBox().check();
    await poll(() => body().locator("pre.markdown-as-sent").textContent()).toBe(SENT);
    expect(await body().locator("a").count()).toBe(0);

    await open();
    expect(await plainBox().isChecked()).toBe(true);
    expect(await body().locator("pre.markdown-as-sent").textContent()).toBe(SENT);

    await plainBox().uncheck();
    await poll(() => body().locator("a").count()).toBe(1);
  });
});
