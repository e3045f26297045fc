/**
 * Editable settings (SPEC §10.1 and the model connection): each field is saved through
 * `settings:set` when it is committed (Enter, leaving the field, or a checkbox change); the main
 * side validates and its one-line reason is shown next to the field when a value is refused.
 */
import { type ReactNode, useState } from "react";
import type { ModelSettings, Settings } from "../../../../core/settings/schema.ts";
import { call } from "../../api.ts";
import { ErrorLine } from "../common/ErrorLine.tsx";

interface FieldProps {
  label: string;
  settingKey: string;
  value: unknown;
  kind: "number" | "text" | "checkbox";
  onSaved(settings: Settings): void;
  hint?: string;
}

function fieldId(key: string): string {
  return `setting-${key.replace(/\./g, "-")}`;
}

function SettingField({ label, settingKey, value, kind, onSaved, hint }: FieldProps) {
  const [draft, setDraft] = useState(value === null || value === undefined ? "" : String(value));
  const [checked, setChecked] = useState(value === true);
  const [error, setError] = useState<string | null>(null);
  const save = async (raw: unknown) => {
    try {
      onSaved(await call("settings:set", { key: settingKey, value: raw }));
      setError(null);
    } catch (caught) {
      setError((caught as Error).message);
      if (kind === "checkbox") setChecked(value === true);
    }
  };
  const commit = () => {
    if (kind === "number") void save(draft.trim() === "" ? null : Number(draft));
    else void save(draft.trim() === "" ? null : draft.trim());
  };
  const id = fieldId(settingKey);
  return (
    <div className="setting-field" data-setting={settingKey}>
      {kind === "checkbox" ? (
        <label htmlFor={id} className="checkbox">
          <input
            id={id}
            type="checkbox"
            checked={checked}
            onChange={(event) => {
              setChecked(event.target.checked);
              void save(event.target.checked);
            }}
          />
          {label}
        </label>
      ) : (
        <>
          <label htmlFor={id}>{label}</label>
          <input
            id={id}
            type={kind === "number" ? "number" : "text"}
            value={draft}
            placeholder={hint}
            onChange={(event) => setDraft(event.target.value)}
            onBlur={commit}
            onKeyDown={(event) => {
              if (event.key === "Enter") commit();
            }}
          />
        </>
      )}
      <ErrorLine message={error} />
    </div>
  );
}

const NEW_MODEL: ModelSettings = {
  baseUrl: "http://127.0.0.1:11434/v1",
  id: "",
  contextWindow: 128000,
  apiKeyEnv: "OPENAI_API_KEY",
  stream: true,
  reasoning: false,
};

/** The model connection: off (offline summarizer) or an OpenAI-compatible endpoint. */
function ModelForm({ settings, onSaved }: { settings: Settings; onSaved(settings: Settings): void }) {
  const [draft, setDraft] = useState<ModelSettings>(settings.model ?? NEW_MODEL);
  const [error, setError] = useState<string | null>(null);
  const save = async (model: ModelSettings | null) => {
    try {
      onSaved(await call("settings:set", { key: "model", value: model }));
      setError(null);
    } catch (caught) {
      setError((caught as Error).message);
    }
  };
  const text = (key: "baseUrl" | "id" | "apiKeyEnv", label: string) => (
    <div className="setting-field">
      <label htmlFor={fieldId(`model.${key}`)}>{label}</label>
      <input
        id={fieldId(`model.${key}`)}
        value={draft[key]}
        onChange={(event) => setDraft({ ...draft, [key]: event.target.value })}
      />
    </div>
  );
  return (
    <fieldset className="model-form">
      <legend>Model (OpenAI-compatible)</legend>
      {text("baseUrl", "Base URL")}
      {text("id", "Model id")}
      <div className="setting-field">
        <label htmlFor={fieldId("model.contextWindow")}>Context window (tokens)</label>
        <input
          id={fieldId("model.contextWindow")}
          type="number"
          value={draft.contextWindow}
          onChange={(event) => setDraft({ ...draft, contextWindow: Number(event.target.value) })}
        />
      </div>
      {text("apiKeyEnv", "API key variable")}
      <label className="checkbox">
        <input type="checkbox" checked={draft.stream} onChange={(event) => setDraft({ ...draft, stream: event.target.checked })} />
        Stream replies
      </label>
      <label className="checkbox">
        <input
          type="checkbox"
          checked={draft.reasoning}
          onChange={(event) => setDraft({ ...draft, reasoning: event.target.checked })}
        />
        Reasoning model (send reasoning_effort)
      </label>
      <div className="row">
        <button type="button" onClick={() => void save(draft)}>
          Save model
        </button>
        {settings.model && (
          <button type="button" onClick={() => void save(null)}>
            Use the offline summarizer
          </button>
        )}
      </div>
      <ErrorLine message={error} />
    </fieldset>
  );
}

export function SettingsForm({ settings, onSaved }: { settings: Settings; onSaved(settings: Settings): void }) {
  const field = (label: string, key: string, kind: FieldProps["kind"], value: unknown, hint?: string): ReactNode => (
    <SettingField
      key={key}
      label={label}
      settingKey={key}
      value={value}
      kind={kind}
      onSaved={onSaved}
      {...(hint === undefined ? {} : { hint })}
    />
  );
  const { compaction, branchSummary, retry, images } = settings;
  return (
    <div className="settings-form" data-testid="settings-form">
      <ModelForm settings={settings} onSaved={onSaved} />
      <fieldset>
        <legend>Compaction</legend>
        {field("Automatic compaction", "compaction.enabled", "checkbox", compaction.enabled)}
        {field("Reserve tokens", "compaction.reserveTokens", "number", compaction.reserveTokens)}
        {field("Keep recent tokens", "compaction.keepRecentTokens", "number", compaction.keepRecentTokens)}
        {field("Continue after a threshold compaction", "compaction.autoContinue", "checkbox", compaction.autoContinue)}
        {field("Remote summary endpoint", "compaction.remoteEndpoint", "text", compaction.remoteEndpoint, "none")}
      </fieldset>
      <fieldset>
        <legend>Branch summaries</legend>
        {field("Ask to summarize when navigating", "branchSummary.enabled", "checkbox", branchSummary.enabled)}
        {field("Reserve tokens", "branchSummary.reserveTokens", "number", branchSummary.reserveTokens)}
      </fieldset>
      <fieldset>
        <legend>Retries</legend>
        {field("Retry transient failures", "retry.enabled", "checkbox", retry.enabled)}
        {field("Max retries", "retry.maxRetries", "number", retry.maxRetries)}
        {field("Base delay (ms)", "retry.baseDelayMs", "number", retry.baseDelayMs)}
      </fieldset>
      <fieldset>
        <legend>Requests</legend>
        {field("Block images (sent as “Image reading is disabled.”)", "images.blockImages", "checkbox", images.blockImages)}
      </fieldset>
    </div>
  );
}
