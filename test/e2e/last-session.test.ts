// The next start opens the session last open, in Debian's Chromium (browser mode): a page loaded
// without a deep link opens the session the user had open before (not the newest one); one
// deleted since, or a library that never had one open, gives the newest session.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SessionSummary } from "../../core/api/dto.ts";
import { apiCall } from "../helpers/browser-mode.ts";
import { type E2eApp, startE2eApp } from "../helpers/e2e-app.ts";

let app: E2eApp;
let sessions: SessionSummary[];

beforeAll(async () => {
  app = await startE2eApp("last-session");
  // Newest first, as the list and the page have them.
  sessions = await apiCall<SessionSummary[]>(app.mode, "library:list", {});
});

afterAll(async () => {
  await app?.stop();
});

/** Loads the app without a deep link and gives the session it opened (the route it writes). */
async function openedOnLoad(): Promise<string> {
  await app.page.goto(app.mode.url);
  await app.page.waitForFunction(() => window.location.hash.startsWith("#/session/"));
  const hash = await app.page.evaluate(() => window.location.hash);
  return decodeURIComponent((/^#\/session\/([^?]+)/.exec(hash) as RegExpExecArray)[1] as string);
}

describe("the session opened on start", () => {
  it("is the newest one the first time", async () => {
    expect(sessions.length).toBeGreaterThanOrEqual(3);
    expect(await openedOnLoad()).toBe(sessions[0]?.id);
  });

  it("is the one last open, after choosing another in the list", async () => {
    const older = sessions.at(-1) as SessionSummary;
    await app.page
      .locator("button.session", { hasText: older.title ?? older.firstMessage })
      .first()
      .click();
    await app.page.waitForFunction(
      (id) => window.location.hash.startsWith(`#/session/${encodeURIComponent(id)}`),
      older.id,
    );
    expect(await openedOnLoad()).toBe(older.id);
  });

  it("is the newest one again when the last one was deleted", async () => {
    const older = sessions.at(-1) as SessionSummary;
    await apiCall(app.mode, "library:delete", { sessionId: older.id });
    expect(await openedOnLoad()).toBe(sessions[0]?.id);
  });
});
