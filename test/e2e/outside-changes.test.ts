// A browser-mode window follows what the CLI, run as a process of its own on the same library,
// writes (main/library/outside-changes.ts), without a reload: an imported session appears in the
// list, a label shows on the open tree, a moved view leaf on the LLM view, a deleted session
// leaves the list. Prints how long after the command ended each one showed.
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SessionTreeDto } from "../../core/api/dto.ts";
import { apiCall } from "../helpers/browser-mode.ts";
import { pathTo, poll } from "../helpers/canvas-page.ts";
import { type E2eApp, startE2eApp } from "../helpers/e2e-app.ts";
import { fixturePath, repoRoot } from "../helpers/fixtures.ts";

const run = promisify(execFile);
/** Not one of the demo sessions the library starts with. */
const TREE_03 = "01a2361e-3203-7727-9845-303d6bc57ce8";

let app: E2eApp;

/** The real CLI in a process of its own, on the page's library; resolves when it has exited. */
async function cli(...args: string[]): Promise<number> {
  await run(
    process.execPath,
    [
      "--experimental-strip-types",
      path.join(repoRoot, "main", "cli.ts"),
      ...args,
      "--db",
      path.join(app.work, "library.db"),
    ],
    { cwd: repoRoot, env: { ...process.env, CANOPY_NO_DEMO: "1" } },
  );
  return Date.now();
}

/** Milliseconds from `since` until `read()` gives `expected` (at most 10 s). */
async function shownAfter<T>(since: number, read: () => Promise<T>, expected: T): Promise<number> {
  await poll(read).toBe(expected);
  return Date.now() - since;
}

const sessionItem = (sessionId: string) =>
  app.page.locator(`.session-groups [data-session-id="${sessionId}"]`);
const llmLeaf = () => app.page.getByTestId("llm-view").getAttribute("data-leaf-id");
/** Set once on the page: still there afterwards means it was never reloaded. */
const notReloaded = () =>
  app.page.evaluate(() => (globalThis as { outsideMarker?: number }).outsideMarker === 1);

beforeAll(async () => {
  app = await startE2eApp("outside");
  await app.page.goto(app.mode.url);
  await app.page.getByTestId("llm-view").waitFor();
  await app.page.evaluate(() => {
    (globalThis as { outsideMarker?: number }).outsideMarker = 1;
  });
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

describe("the window follows the CLI", () => {
  it("shows a session the CLI imported, its label on the tree and its moved view leaf in the LLM view", async () => {
    expect(await sessionItem(TREE_03).count()).toBe(0);
    const imported = await cli("import", fixturePath("tree-03.jsonl"));
    const listMs = await shownAfter(imported, () => sessionItem(TREE_03).count(), 1);

    await sessionItem(TREE_03).click();
    const tree = await apiCall<SessionTreeDto>(app.mode, "session:tree", { sessionId: TREE_03 });
    const leaf = tree.viewLeafId as string;
    await poll(llmLeaf).toBe(leaf);
    const badge = app.page.locator(`.tree-node[data-entry-id="${leaf}"] .label-badge`);
    expect(await badge.count()).toBe(0);

    const labelled = await cli("label", TREE_03, leaf, "from-the-terminal");
    const labelMs = await shownAfter(labelled, () => badge.count(), 1);
    expect(await badge.textContent()).toBe("from-the-terminal");

    // An assistant reply further up the active path: navigating there makes it the view leaf.
    const target = pathTo(tree.nodes, leaf)
      .slice(0, -1)
      .reverse()
      .find((node) => node.kind === "assistant");
    if (!target) throw new Error("tree-03 has no assistant reply above its view leaf");
    const navigated = await cli("navigate", TREE_03, target.id);
    const leafMs = await shownAfter(navigated, llmLeaf, target.id);

    const deleted = await cli("delete", TREE_03);
    const deleteMs = await shownAfter(deleted, () => sessionItem(TREE_03).count(), 0);

    expect(await notReloaded()).toBe(true);
    console.log(
      `shown after the CLI exited: import ${listMs} ms, label ${labelMs} ms, view leaf ${leafMs} ms, delete ${deleteMs} ms`,
    );
    // The poll runs every 500 ms; the rest is the page reloading what changed.
    for (const ms of [listMs, labelMs, leafMs, deleteMs]) expect(ms).toBeLessThan(5000);
  }, 120_000);
});
