// The model connection in Settings, as a keyboard user meets it in Chromium (browser mode): Enter
// in a model field saves the model as the other settings fields save on Enter (it used to do
// nothing, and the typed model was lost on the next reload); while the form differs from the saved
// model a note says so (Test connection tests the saved one); Escape puts the saved model back.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Settings } from "../../core/settings/schema.ts";
import { apiCall } from "../helpers/browser-mode.ts";
import { poll } from "../helpers/canvas-page.ts";
import { type E2eApp, startE2eApp } from "../helpers/e2e-app.ts";

let app: E2eApp;
let page: Page;

const stored = () => apiCall<Settings>(app.mode, "settings:get", {});

beforeAll(async () => {
  app = await startE2eApp("settings-model-form");
  ({ page } = app);
  await page.goto(app.mode.url);
  await page.getByTestId("llm-view").waitFor();
  await page.getByText("Settings and prompts").click();
  await page.getByTestId("settings-form").waitFor();
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

describe("the model form with the keyboard", () => {
  it("saves the model on Enter in one of its fields", async () => {
    await page.getByLabel("Base URL").fill("http://127.0.0.1:9/v1");
    await page.getByLabel("Model id").fill("typed-model");
    await page.getByLabel("Model id").press("Enter");
    await poll(async () => (await stored()).model?.id ?? null).toBe("typed-model");
    expect((await stored()).model?.baseUrl).toBe("http://127.0.0.1:9/v1");
    await poll(() => page.getByTestId("model-unsaved").count()).toBe(0);
  });

  it("says the form is not saved while it differs, and Escape puts the saved model back", async () => {
    const unsaved = page.getByTestId("model-unsaved");
    expect(await unsaved.count()).toBe(0);
    await page.getByLabel("Model id").fill("not-saved-yet");
    await poll(() => unsaved.count()).toBe(1);
    expect(await unsaved.textContent()).toContain("Test connection tests the saved model");
    await page.getByLabel("Model id").press("Escape");
    await poll(() => page.getByLabel("Model id").inputValue()).toBe("typed-model");
    expect(await unsaved.count()).toBe(0);
    expect((await stored()).model?.id).toBe("typed-model");
  });
});
