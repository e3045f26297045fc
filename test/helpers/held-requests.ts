/**
 * Holding the page's API requests in browser-mode e2e tests (page.route): a channel's requests
 * wait until the test releases them, so the work they start is still running while the test
 * looks at the page. One helper for what several tests wrote out by hand; and one that keeps the
 * page's interception on while such routes come and go.
 */
import type { Page, Route } from "playwright-core";

/**
 * Holds the page's requests to `channel` (every one, or with `firstOnly` the first alone) until the
 * returned function is called; it lets them through and removes the route (calling it again does nothing).
 */
export async function holdRequests(
  page: Page,
  channel: string,
  { firstOnly = false }: { firstOnly?: boolean } = {},
): Promise<() => Promise<void>> {
  let release!: () => void;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  let waiting = true;
  const matches = (url: URL) => decodeURIComponent(url.pathname) === `/api/${channel}`;
  const hold = async (route: Route) => {
    if (waiting) {
      if (firstOnly) waiting = false;
      await held;
    }
    // Unrouted meanwhile (a failed test, the page closed): nothing to let through.
    await route.continue().catch(() => undefined);
  };
  await page.route(matches, hold);
  let released = false;
  return async () => {
    release();
    if (released) return;
    released = true;
    await page.unroute(matches, hold);
  };
}

/**
 * Keeps the page's request interception on from now until the page closes (a route that lets
 * every API request through). Without it, a test's last route going away (unrouted, or a
 * `times: 1` route used up) turns interception off in Chromium (Fetch.disable), and a request the
 * page sends at that very moment is never answered: Chromium neither pauses nor lets it go. A
 * page that sends its next request as the held one answers (a plan followed again) then waits
 * for good. Routes added later still come first.
 */
export async function keepInterceptionOn(page: Page): Promise<void> {
  await page.route(
    (url) => url.pathname.startsWith("/api/"),
    // A request of a page closing meanwhile: nothing to let through.
    (route) => route.fallback().catch(() => undefined),
  );
}
