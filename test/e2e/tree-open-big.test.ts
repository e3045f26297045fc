// A big session (a generated 4,000-entry one, Debian's Chromium, browser mode) is laid out in
// steps when it opens, a task each, before the render that shows it (open-steps.ts): a deep link
// to an entry far up its path, inside a collapsed chain, still lands on that entry, selected on
// the canvas and shown in the LLM view, and a search hit in it, clicked while another session is
// open, still jumps to its entry.
import fs from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeGeneratedSession } from "../../bench/generate-session.ts";
import type { ImportReport, SessionTreeDto, TreeNodeDto } from "../../core/api/dto.ts";
import type { BrowserMode } from "../../main/serve.ts";
import { layoutTree } from "../../renderer/src/features/tree/layout.ts";
import { apiCall } from "../helpers/browser-mode.ts";
import { pathTo } from "../helpers/canvas-page.ts";
import { type E2eApp, startE2eApp } from "../helpers/e2e-app.ts";

let app: E2eApp;
let mode: BrowserMode;
let page: Page;
let sessionId: string;
let tree: SessionTreeDto;
let activePath: TreeNodeDto[];
let smallId: string;
/** A user message on the generated path, given a word no other entry has (a search finds it alone). */
const WORD = "zebraquux";
let wordEntryId: string;

/** Puts WORD at the start of the text of the user message halfway up the path to `leafId`. */
function markUserMessage(file: string, leafId: string): string {
  const lines = fs.readFileSync(file, "utf8").split("\n");
  const byId = new Map<string, { at: number; entry: Record<string, unknown> }>();
  lines.forEach((line, at) => {
    if (!line.trim()) return;
    const entry = JSON.parse(line) as Record<string, unknown>;
    if (typeof entry.id === "string") byId.set(entry.id, { at, entry });
  });
  const users: { at: number; entry: Record<string, unknown> }[] = [];
  for (let id: unknown = leafId; typeof id === "string"; ) {
    const found = byId.get(id);
    if (!found) break;
    if ((found.entry.message as { role?: string } | undefined)?.role === "user") users.push(found);
    id = found.entry.parentId;
  }
  const chosen = users[Math.floor(users.length / 2)];
  if (!chosen) throw new Error("no user message on the path");
  const message = chosen.entry.message as { content: unknown };
  if (typeof message.content === "string") message.content = `${WORD} ${message.content}`;
  else {
    const block = (message.content as { type: string; text?: string }[]).find((b) => b.type === "text");
    if (!block) throw new Error("a user message without text");
    block.text = `${WORD} ${block.text ?? ""}`;
  }
  lines[chosen.at] = JSON.stringify(chosen.entry);
  fs.writeFileSync(file, lines.join("\n"));
  return chosen.entry.id as string;
}

beforeAll(async () => {
  app = await startE2eApp("tree-open-big", { serve: { seedDemo: false } });
  ({ mode, page } = app);
  const generated = writeGeneratedSession(path.join(app.work, "sessions", "generated.jsonl"), 4000);
  wordEntryId = markUserMessage(generated.file, generated.deepestLeafId);
  const report = await apiCall<ImportReport>(mode, "library:import", { path: generated.file });
  expect(report.imported).toBe(1);
  sessionId = report.files[0]?.sessionId as string;
  const small = await apiCall<ImportReport>(mode, "library:import", {
    path: path.join(import.meta.dirname, "..", "..", "main", "demo", "refactor-small.jsonl"),
  });
  smallId = small.files[0]?.sessionId as string;
  tree = await apiCall<SessionTreeDto>(mode, "session:tree", { sessionId });
  activePath = pathTo(tree.nodes, tree.viewLeafId);
}, 240_000);

afterAll(async () => {
  await app?.stop();
});

const selected = () =>
  page.evaluate(
    `document.querySelector(".tree-node.is-selected")?.getAttribute("data-entry-id") ?? null`,
  ) as Promise<string | null>;
const llmLeaf = () => page.getByTestId("llm-view").getAttribute("data-leaf-id");

describe("a big session opened in steps", () => {
  it("is big enough to be opened in steps", () => {
    // open-steps.ts's OPEN_IN_STEPS_FROM (not imported: the module brings the store, which needs a page).
    expect(tree.nodes.length).toBeGreaterThanOrEqual(2000);
  });

  it("opens at a deep link's entry far up the path, selected on the canvas and in the LLM view", async () => {
    const target = activePath[Math.floor(activePath.length / 2)] as TreeNodeDto;
    // Not a node of its own on the canvas as the tree opens: in a collapsed chain.
    const opened = layoutTree(tree.nodes, { filter: "default", viewLeafId: tree.viewLeafId });
    expect(opened.byId.get(opened.nodeOfEntry(target.id) ?? "")?.kind).toBe("chain");
    await page.goto(`${mode.url}#/session/${encodeURIComponent(sessionId)}?leaf=${target.id}`);
    await expect.poll(selected, { timeout: 60_000 }).toBe(target.id);
    await expect.poll(llmLeaf, { timeout: 30_000 }).toBe(target.id);
    expect(await page.getByTestId("tree-canvas").getAttribute("data-tree-session")).toBe(sessionId);
  }, 120_000);

  it("opens at a search hit's entry when the hit is clicked from another session", async () => {
    await page.goto(`${mode.url}#/session/${encodeURIComponent(smallId)}`);
    await page.locator(`.tree-canvas[data-tree-session="${smallId}"] .tree-node`).first().waitFor();
    await page.getByLabel("Search all sessions").fill(WORD);
    const hit = page.locator(`.search-hit[data-hit-entry-id="${wordEntryId}"]`);
    await hit.waitFor({ timeout: 60_000 });
    await hit.click();
    await expect.poll(selected, { timeout: 60_000 }).toBe(wordEntryId);
    await expect.poll(llmLeaf, { timeout: 30_000 }).toBe(wordEntryId);
    expect(await page.getByTestId("tree-canvas").getAttribute("data-tree-session")).toBe(sessionId);
  }, 120_000);
});
