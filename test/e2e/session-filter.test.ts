// The sidebar's session filter, in Debian's Chromium (browser mode): its placeholder fits the box
// whole at the sidebar's default width (300 px) and at the narrow window's (230 px), and the full
// hint (what the filter looks in) is its accessible name and tooltip; the sort menu beside it
// shows its longest choice whole at both widths.
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { artifactsDir } from "../helpers/chromium.ts";
import { type E2eApp, openLibrary, startE2eApp } from "../helpers/e2e-app.ts";

let app: E2eApp;

beforeAll(async () => {
  app = await startE2eApp("session-filter");
});

afterAll(async () => {
  await app?.stop();
});

/**
 * Whether the placeholder shows whole: a copy of the box as wide, holding the placeholder as its
 * value, does not scroll (Chromium's search box keeps room for its clear button, so the text's own
 * width against the box's padding is not enough).
 */
async function placeholderFits(): Promise<{ fits: boolean; placeholder: string }> {
  return (await app.page.evaluate(`(() => {
    const input = document.querySelector(".session-filter");
    const copy = input.cloneNode();
    copy.style.position = "absolute";
    copy.style.width = input.offsetWidth + "px";
    copy.value = input.placeholder;
    input.parentElement.append(copy);
    const fits = copy.scrollWidth <= copy.clientWidth;
    copy.remove();
    return { fits, placeholder: input.placeholder };
  })()`)) as { fits: boolean; placeholder: string };
}

/** Whether the sort menu is as wide as its longest choice needs (a copy without width limits). */
async function sortMenuFits(): Promise<{ shown: number; needed: number }> {
  return (await app.page.evaluate(`(() => {
    const select = document.querySelector(".session-list-controls select");
    const copy = select.cloneNode(true);
    copy.style.position = "absolute";
    copy.style.maxWidth = "none";
    copy.style.width = "auto";
    select.parentElement.append(copy);
    const needed = copy.offsetWidth;
    copy.remove();
    return { shown: select.offsetWidth, needed };
  })()`)) as { shown: number; needed: number };
}

describe("the session filter", () => {
  it.each([
    { width: 1280, sidebar: 300 },
    { width: 1000, sidebar: 230 },
  ])(
    "shows its whole placeholder and sort choices in a $sidebar px sidebar, the full hint as name and tooltip",
    async ({ width, sidebar }) => {
      const { page } = app;
      await page.setViewportSize({ width, height: 800 });
      await openLibrary(app);
      const aside = page.locator(".sidebar");
      expect(Math.round((await aside.boundingBox())?.width ?? 0)).toBe(sidebar);
      const filter = page.getByRole("searchbox", {
        name: "Filter the list by title, first message, folder, file name or session id",
      });
      await filter.waitFor();
      const fit = await placeholderFits();
      expect(fit.placeholder).not.toBe("");
      expect(fit).toEqual({ fits: true, placeholder: fit.placeholder });
      expect(await filter.getAttribute("title")).toBe("Filter the list by title, first message, folder, file name or session id");
      const sort = await sortMenuFits();
      expect(
        sort.shown,
        `sort menu ${sort.shown} px wide, its longest choice needs ${sort.needed} px`,
      ).toBeGreaterThanOrEqual(sort.needed);
      await aside.screenshot({ path: path.join(artifactsDir(), `session-filter-${sidebar}.png`) });
    },
  );
});
