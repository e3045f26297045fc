// A bash run whose output holds a `<summary>` line (an HTML file's <details>), in Debian's
// Chromium (browser mode): the LLM view drew it as a compaction summary — its fenced block split
// in two, the indentation after `</summary>` lost even in Plain text. Only a compaction or branch
// summary is drawn as one now; any other message shows its text whole, as sent.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ImportReport } from "../../core/api/dto.ts";
import { apiCall } from "../helpers/browser-mode.ts";
import { poll } from "../helpers/canvas-page.ts";
import { type E2eApp, startE2eApp } from "../helpers/e2e-app.ts";

const OUTPUT = "<details>\n<summary>\nClick me\n</summary>\n   Hidden text\n</details>";
const SENT = `Ran \`cat page.html\`\n\`\`\`\n${OUTPUT}\n\`\`\``;

let app: E2eApp;
let sessionId: string;

beforeAll(async () => {
  app = await startE2eApp("llm-summary-lookalike");
  const at = "2026-12-02T09:37:58.192Z";
  const bash = {
    role: "bashExecution",
    command: "cat page.html",
    output: OUTPUT,
    exitCode: 0,
    cancelled: false,
  };
  const lines = [
    { type: "session", version: 3, id: "lookalike-session", timestamp: at, cwd: "/tmp/lookalike" },
    {
      type: "message",
      id: "u1",
      parentId: null,
      timestamp: at,
      message: { role: "user", content: "Hi", timestamp: 1 },
    },
    {
      type: "message",
      id: "b1",
      parentId: "u1",
      timestamp: at,
      message: { ...bash, truncated: false, timestamp: 2 },
    },
    {
      type: "compaction",
      id: "c1",
      parentId: "b1",
      timestamp: at,
      summary: "Greeted the user.",
      firstKeptEntryId: "b1",
      tokensBefore: 100,
    },
    {
      type: "message",
      id: "u2",
      parentId: "c1",
      timestamp: at,
      message: { role: "user", content: "Go on", timestamp: 3 },
    },
  ];
  const file = path.join(app.work, "lookalike.jsonl");
  writeFileSync(file, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
  const report = await apiCall<ImportReport>(app.mode, "library:import", { path: file });
  sessionId = report.files[0]?.sessionId as string;
});

afterAll(async () => {
  await app?.stop();
});

const item = (entryId: string) =>
  app.page.locator(`[data-testid=llm-view] li.message[data-entry-id="${entryId}"]`);

describe("a <summary> line in a message that is no summary", () => {
  it("is shown whole, as sent; the compaction summary is still drawn as one", async () => {
    await app.page.goto(`${app.mode.url}#/session/${encodeURIComponent(sessionId)}`);
    await item("b1").locator(".message-body").waitFor();
    const plain = app.page.getByRole("checkbox", { name: "Plain text" });
    await plain.check();
    await poll(() => item("b1").locator(".message-body pre.markdown-as-sent").textContent()).toBe(SENT);
    expect(await item("b1").locator(".summary-part").count()).toBe(0);
    expect(await item("c1").locator(".summary-part .summary-text").textContent()).toBe("Greeted the user.");
    await plain.uncheck();
    // Rendered: the whole output is one fenced block, as the model reads it.
    await poll(() => item("b1").locator(".md-code pre").textContent()).toBe(OUTPUT);
    expect(await item("b1").locator(".summary-part").count()).toBe(0);
  });
});
