/**
 * Settings at a glance: which summarizer runs, the compaction settings, which prompt template
 * file is in effect (default or the user's override), the loaded hooks, a connection test (Cancel
 * or Escape stops it, aborting its requests), the API keys of the configured models (set or not; never their values) and the agent folders.
 * The chat composer's "No model configured" message opens it (store: settingsOpen). It follows
 * `settings:changed` — a change in another window or tab, or the CLI's `settings set` — in place.
 */
import { useCallback, useEffect, useRef, useState } from "react";
import type { ConnectionTestDto, HooksDto, PromptTemplateDto } from "../../../../core/api/dto.ts";
import { counted } from "../../../../core/session/describe.ts";
import type { Settings } from "../../../../core/settings/schema.ts";
import { ApiCallError, call, onEvent } from "../../api.ts";
import { CONNECTION_TEST_RUNNING } from "../../store/disabled-reasons.ts";
import { useCanopy } from "../../store/index.ts";
import { ErrorLine } from "../common/ErrorLine.tsx";
import { FoldersSection } from "./FoldersSection.tsx";
import { SecretsSection } from "./SecretsSection.tsx";
import { SettingsForm } from "./SettingsForm.tsx";

/** A random id for one connection test (getRandomValues works in every context, unlike randomUUID). */
function newTestId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return `test-${Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("")}`;
}

interface Loaded {
  settings: Settings;
  prompts: PromptTemplateDto[];
  hooks: HooksDto;
}

export function SettingsPanel() {
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [test, setTest] = useState<ConnectionTestDto | "running" | "cancelled" | null>(null);
  const open = useCanopy((state) => state.settingsOpen);
  const setOpen = useCanopy((state) => state.setSettingsOpen);
  const loadContext = useCanopy((state) => state.loadContext);
  const element = useRef<HTMLDetailsElement>(null);
  // Opened (here or by the composer's "Open settings"), the panel comes into view from its top
  // once its content is in: scrolled while it was only its heading, the model form stayed below
  // the window's edge and the link seemed to do nothing.
  const hasContent = loaded !== null;
  useEffect(() => {
    if (!open) return;
    element.current?.scrollIntoView({ block: hasContent ? "start" : "nearest" });
    // Opened by that link from the keyboard: the focus goes to the model form it sends you to,
    // not left far away under the composer.
    if (hasContent && document.activeElement?.closest("[data-opens-settings]")) {
      document.getElementById("setting-model-baseUrl")?.focus();
    }
  }, [open, hasContent]);

  /** The settings shown (JSON), so that a save here and its settings:changed apply once. */
  const shown = useRef<string | null>(null);
  /** Shows new settings, whoever changed them (this window, another one, the CLI). */
  const applySettings = useCallback(
    (settings: Settings) => {
      const json = JSON.stringify(settings);
      if (json === shown.current) return;
      shown.current = json;
      setLoaded((current) => current && { ...current, settings });
      setTest(null); // a connection result describes the settings it was run with
      // The LLM view's request marks and context bar depend on the model and images.blockImages.
      const { selectedSessionId, selectedEntryId } = useCanopy.getState();
      if (selectedSessionId) void loadContext(selectedSessionId, selectedEntryId ?? undefined);
    },
    [loadContext],
  );
  useEffect(() => onEvent("settings:changed", (payload) => applySettings(payload.settings)), [applySettings]);
  /** A save refused as stale: the settings as they are now (the event may still be on its way). */
  const reloadSettings = useCallback(async () => {
    try {
      applySettings(await call("settings:get", {}));
    } catch (caught) {
      setError((caught as Error).message);
    }
  }, [applySettings]);

  const load = async () => {
    try {
      const [settings, prompts, hooks] = await Promise.all([
        call("settings:get", {}),
        call("settings:prompts", {}),
        call("settings:hooks", {}),
      ]);
      shown.current = JSON.stringify(settings);
      setLoaded({ settings, prompts, hooks });
      setError(null);
    } catch (caught) {
      setError((caught as Error).message);
    }
  };

  const [cancelError, setCancelError] = useState<string | null>(null);
  /** The id this window gave its running test: Cancel names it, so another window's test goes on. */
  const testId = useRef<string | null>(null);
  /** Stops this window's running connection test; its request then ends with "cancelled". */
  const cancelTest = useCallback(async () => {
    const id = testId.current;
    if (id === null) return;
    try {
      await call("settings:cancel-test-connection", { testId: id });
    } catch (caught) {
      setCancelError(`Could not cancel: ${(caught as Error).message}`);
    }
  }, []);

  const testConnection = async () => {
    if (testId.current !== null) return; // one test at a time (the button stays focusable meanwhile)
    setCancelError(null);
    setTest("running");
    const id = newTestId();
    testId.current = id;
    try {
      setTest(await call("settings:test-connection", { testId: id }));
    } catch (caught) {
      const cancelled = caught instanceof ApiCallError && caught.code === "cancelled";
      setTest(cancelled ? "cancelled" : { ok: false, message: (caught as Error).message, summarizer: "" });
    } finally {
      if (testId.current === id) testId.current = null;
    }
  };
  const testRunning = test === "running";
  useEffect(() => {
    if (!testRunning) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key === "Escape") void cancelTest();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [testRunning, cancelTest]);

  return (
    <details
      ref={element}
      className="settings-panel"
      open={open}
      onToggle={(event) => {
        const nowOpen = event.currentTarget.open;
        if (nowOpen !== open) setOpen(nowOpen);
        if (nowOpen) void load();
      }}
    >
      <summary>Settings and prompts</summary>
      <ErrorLine message={error} />
      {loaded && (
        <div data-testid="settings-panel">
          <p>
            Model:{" "}
            {loaded.settings.model ? (
              <code>
                {loaded.settings.model.id} at {loaded.settings.model.baseUrl}
              </code>
            ) : (
              "none — the built-in offline summarizer writes summaries"
            )}
          </p>
          {/* Busy: aria-disabled, not disabled, which would drop the focus of a keyboard user to the page. */}
          <button
            type="button"
            onClick={() => void testConnection()}
            aria-disabled={testRunning}
            title={testRunning ? CONNECTION_TEST_RUNNING : undefined}
          >
            Test connection
          </button>
          {testRunning && (
            <p role="status" data-testid="connection-test-running">
              Testing the connection… Escape cancels.{" "}
              <button type="button" className="link-button" onClick={() => void cancelTest()} aria-keyshortcuts="Escape" title="Escape">
                Cancel
              </button>
            </p>
          )}
          {testRunning && <ErrorLine message={cancelError} />}
          {test === "cancelled" && (
            <p className="ok" role="status">
              Connection test cancelled.
            </p>
          )}
          {test && test !== "running" && test !== "cancelled" && (
            <p className={test.ok ? "ok" : "error"} role="status">
              {test.ok ? `OK: ${test.summarizer} (${test.latencyMs} ms)` : `Failed: ${test.message}`}
            </p>
          )}
          <SettingsForm
            settings={loaded.settings}
            onSaved={applySettings}
            onStale={() => void reloadSettings()}
          />
          <SecretsSection
            names={[loaded.settings.model, ...loaded.settings.fallbackModels]
              .flatMap((model) => (model ? [model.apiKeyEnv] : []))
              .filter((name, index, all) => all.indexOf(name) === index)}
          />
          <FoldersSection />
          <h3>Prompt templates in effect</h3>
          <ul className="prompt-list">
            {loaded.prompts.map((prompt) => (
              <li key={prompt.name} data-prompt={prompt.name} data-source={prompt.source} title={prompt.path}>
                {prompt.source === "unused"
                  ? `${prompt.name}: not used (${prompt.warning ?? "named after no prompt"})`
                  : `${prompt.name}: ${prompt.source === "override" ? "your override" : "default"}`}
                {prompt.source !== "unused" && prompt.warning ? ` (${prompt.warning})` : ""}
              </li>
            ))}
          </ul>
          <h3>Hooks</h3>
          <p>
            {counted(loaded.hooks.handlers.length, "handler")} from <code>{loaded.hooks.folder}</code>
          </p>
          {loaded.hooks.errors.map((hookError) => (
            <p key={`${hookError.extension}:${hookError.message}`} className="error">
              {hookError.extension} ({hookError.event}): {hookError.message}
            </p>
          ))}
        </div>
      )}
    </details>
  );
}
