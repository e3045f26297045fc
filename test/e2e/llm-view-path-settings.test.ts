// The LLM view did not say which model and thinking level are in effect at the leaf (SPEC §3.2;
// context:get returned them): the header now says them next to the leaf line, or that the path
// sets none and what the agent then uses; omp's other model roles follow. Previewing an earlier
// entry shows that entry's.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ImportReport } from "../../core/api/dto.ts";
import { apiCall } from "../helpers/browser-mode.ts";
import { type E2eApp, startE2eApp } from "../helpers/e2e-app.ts";

let app: E2eApp;
const at = "2026-12-02T09:37:58.192Z";

async function importLines(name: string, lines: unknown[]): Promise<string> {
  const file = path.join(app.work, `${name}.jsonl`);
  writeFileSync(file, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
  const report = await apiCall<ImportReport>(app.mode, "library:import", { path: file });
  return report.files[0]?.sessionId as string;
}

const user = (id: string, parentId: string | null, text: string) => ({
  type: "message",
  id,
  parentId,
  timestamp: at,
  message: { role: "user", content: text, timestamp: 1 },
});

let setId: string;
let bareId: string;

beforeAll(async () => {
  app = await startE2eApp("llm-path-settings");
  setId = await importLines("settings-set", [
    { type: "session", version: 3, id: "path-settings-set", timestamp: at, cwd: "/tmp/set" },
    user("u1", null, "Before any setting"),
    { type: "model_change", id: "m1", parentId: "u1", timestamp: at, model: "openai/gpt-b" },
    { type: "model_change", id: "m2", parentId: "m1", timestamp: at, model: "openai/gpt-mini", role: "smol" },
    { type: "thinking_level_change", id: "t1", parentId: "m2", timestamp: at, thinkingLevel: "high" },
    user("u2", "t1", "After the settings"),
  ]);
  bareId = await importLines("settings-none", [
    { type: "session", version: 3, id: "path-settings-none", timestamp: at, cwd: "/tmp/none" },
    user("n1", null, "No settings at all"),
  ]);
});

afterAll(async () => {
  await app?.stop();
});

const settings = () => app.page.locator("[data-testid=llm-view] [data-testid=path-settings]");

describe("the LLM view's header", () => {
  it("says the model and thinking level in effect at the leaf, and other model roles", async () => {
    await app.page.goto(`${app.mode.url}#/session/${encodeURIComponent(setId)}`);
    await app.page.locator('[data-testid=llm-view][data-leaf-id="u2"]').waitFor();
    expect(await settings().textContent()).toBe("Model openai/gpt-b · thinking high · smol openai/gpt-mini");
    expect(await settings().getAttribute("data-model")).toBe("openai/gpt-b");
    expect(await settings().getAttribute("data-thinking")).toBe("high");
  });

  it("says when the path sets none, and what the agent then uses; a preview shows the entry's", async () => {
    await app.page.goto(`${app.mode.url}#/session/${encodeURIComponent(bareId)}`);
    await app.page.locator('[data-testid=llm-view][data-leaf-id="n1"]').waitFor();
    expect(await settings().textContent()).toBe(
      "Model: none on this path (the agent uses its default model) · thinking: none on this path (the agent uses its default level, off unless configured)",
    );
    expect(await settings().getAttribute("data-model")).toBe("");

    await app.page.goto(`${app.mode.url}#/session/${encodeURIComponent(setId)}`);
    await app.page.locator('[data-testid=llm-view][data-leaf-id="u2"]').waitFor();
    await app.page.locator('[data-testid=llm-view] li.message[data-entry-id="u1"] .entry-link').click();
    await app.page.locator('[data-testid=llm-view][data-leaf-id="u1"]').waitFor();
    expect(await settings().getAttribute("data-model")).toBe("");
    expect(await settings().getAttribute("data-thinking")).toBe("");
  });

  it("does not split a setting from its value when the line wraps (900 px windows and up)", async () => {
    await app.page.goto(`${app.mode.url}#/session/${encodeURIComponent(setId)}`);
    await app.page.locator('[data-testid=llm-view][data-leaf-id="u2"]').waitFor();
    const before = app.page.viewportSize();
    const phrases = ["Model openai/gpt-b", "thinking high", "smol openai/gpt-mini"];
    const split: string[] = [];
    try {
      for (let width = 900; width <= 1280; width += 6) {
        await app.page.setViewportSize({ width, height: 600 });
        // The lines each phrase's text is drawn on (distinct tops of its range's boxes).
        const lines = await settings().evaluate((p, words) => {
          const texts: Text[] = [];
          const walker = document.createTreeWalker(p, NodeFilter.SHOW_TEXT);
          for (let node = walker.nextNode(); node; node = walker.nextNode()) texts.push(node as Text);
          const at = (offset: number): [Text, number] => {
            let rest = offset;
            for (const text of texts) {
              if (rest <= text.length) return [text, rest];
              rest -= text.length;
            }
            throw new Error("offset past the text");
          };
          const whole = p.textContent ?? "";
          return words.map((phrase) => {
            const start = whole.indexOf(phrase);
            const range = document.createRange();
            range.setStart(...at(start));
            range.setEnd(...at(start + phrase.length));
            const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
            return tops.size;
          });
        }, phrases);
        lines.forEach((count, i) => {
          if (count > 1) split.push(`${width}px: ${phrases[i]}`);
        });
      }
    } finally {
      if (before) await app.page.setViewportSize(before);
    }
    expect(split).toEqual([]);
  });
});
