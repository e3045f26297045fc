/**
 * Editable settings (SPEC §10.1 and the model connection): each field is saved through
 * `settings:set` when it is committed (Enter, leaving the field, or a checkbox change) and only
 * when the user changed it, naming the value it showed (`expected`): one another window or the
 * CLI changed since is refused, not overwritten. Settings changed elsewhere show at once in the
 * fields the user is not editing; a field being edited keeps what is typed and says what the
 * value became (Escape takes it). The main side's one-line reason shows next to a refused value.
 */
import { type ReactNode, useRef, useState } from "react";
import { getSettingAt, type ModelSettings, type Settings } from "../../../../core/settings/schema.ts";
import { ApiCallError, call } from "../../api.ts";
import { ErrorLine } from "../common/ErrorLine.tsx";

interface Saving {
  onSaved(settings: Settings): void;
  /** A save was refused because the settings changed elsewhere: read them again. */
  onStale(): void;
}

interface FieldProps extends Saving {
  label: string;
  settingKey: string;
  value: unknown;
  kind: "number" | "text" | "checkbox";
  hint?: string;
}

function fieldId(key: string): string {
  return `setting-${key.replace(/\./g, "-")}`;
}

function textOf(value: unknown): string {
  return value === null || value === undefined ? "" : String(value);
}

/** The value a committed draft saves. */
function parsed(draft: string, kind: FieldProps["kind"]): unknown {
  if (draft.trim() === "") return null;
  return kind === "number" ? Number(draft) : draft.trim();
}

/** The message of a failed save; a conflict (changed elsewhere) also has the settings read again. */
function failed(caught: unknown, onStale: () => void): string {
  if (caught instanceof ApiCallError && caught.code === "conflict") onStale();
  return (caught as Error).message;
}

function SettingField({ label, settingKey, value, kind, onSaved, onStale, hint }: FieldProps) {
  /** The stored value the field last showed: what a save names as `expected`. */
  const [base, setBase] = useState<unknown>(value);
  const [draft, setDraft] = useState(textOf(value));
  const [checked, setChecked] = useState(value === true);
  const [error, setError] = useState<string | null>(null);
  /** The value set elsewhere while the user was editing this field (null: none). */
  const [elsewhere, setElsewhere] = useState<string | null>(null);
  /** A save of this field is on its way (aria-busy): its answer sets what the field shows. */
  const [saving, setSaving] = useState(false);
  /**
   * This field's saves, one after the other: one made before the last one answered waits for it
   * and names what it stored as `expected` (else it named the value before, and was refused as
   * changed elsewhere). `known` is the stored value as this field last learnt it.
   */
  const saves = useRef({ tail: Promise.resolve(), waiting: 0, known: value, last: undefined as unknown });
  if (!Object.is(value, base)) {
    // A new stored value (saved here, in another window or by the CLI): shown unless the user is
    // typing something else here, which is kept — and told what the value became. While this
    // field's own saves are on their way, the last one's answer says what the field shows.
    if (saves.current.waiting === 0) {
      const editing = !Object.is(parsed(draft, kind), base) && !Object.is(parsed(draft, kind), value);
      if (editing) setElsewhere(textOf(value) || "none");
      else {
        setDraft(textOf(value));
        setElsewhere(null);
      }
      setChecked(value === true);
      saves.current.known = value;
    }
    setBase(value);
  }
  const saveNow = async (raw: unknown) => {
    const queue = saves.current;
    try {
      const settings = await call("settings:set", {
        key: settingKey,
        value: raw,
        expected: queue.known ?? null,
      });
      queue.known = getSettingAt(settings, settingKey);
      // A later save waits: what the user typed or ticked since stays until its answer.
      if (queue.waiting === 1) {
        setDraft(textOf(queue.known));
        setChecked(queue.known === true);
        setElsewhere(null);
      }
      setError(null);
      onSaved(settings);
    } catch (caught) {
      setError(failed(caught, onStale));
      if (kind === "checkbox" && queue.waiting === 1) setChecked(queue.known === true);
    } finally {
      if (--queue.waiting === 0) setSaving(false);
    }
  };
  const save = (raw: unknown) => {
    const queue = saves.current;
    queue.waiting++;
    queue.last = raw;
    setSaving(true);
    queue.tail = queue.tail.then(() => saveNow(raw));
    return queue.tail;
  };
  const commit = () => {
    // Only what the user changed: leaving an untouched field saves nothing (it might be stale).
    const raw = parsed(draft, kind);
    // Enter then leaving the field: that value is on its way already.
    if (saves.current.waiting > 0 && Object.is(raw, saves.current.last)) return;
    if (Object.is(raw, base)) {
      setDraft(textOf(base));
      setError(null);
      return;
    }
    void save(raw);
  };
  const id = fieldId(settingKey);
  return (
    <div className="setting-field" data-setting={settingKey}>
      {kind === "checkbox" ? (
        <label htmlFor={id} className="checkbox">
          <input
            id={id}
            type="checkbox"
            aria-busy={saving}
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
            aria-busy={saving}
            value={draft}
            placeholder={hint}
            onChange={(event) => setDraft(event.target.value)}
            onBlur={commit}
            onKeyDown={(event) => {
              if (event.key === "Enter") commit();
              if (event.key === "Escape" && !Object.is(parsed(draft, kind), base)) {
                // Back to the stored value; the Escape goes no further (it would cancel work).
                event.stopPropagation();
                setDraft(textOf(base));
                setElsewhere(null);
                setError(null);
              }
            }}
          />
        </>
      )}
      {elsewhere !== null && (
        <p className="note" role="status" data-testid="changed-elsewhere">
          Changed elsewhere to {elsewhere} while you were editing: Enter saves yours, Escape takes {elsewhere}.
        </p>
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

type ModelKey = keyof ModelSettings;

/**
 * The draft after the stored model moved from `from` to `to` elsewhere: the fields the user has
 * not touched take the new values, the ones typed here stay; `clashes` are those changed on both sides.
 */
function rebaseModel(
  draft: ModelSettings,
  from: ModelSettings,
  to: ModelSettings,
): { draft: ModelSettings; clashes: ModelKey[] } {
  const next = { ...to };
  const clashes: ModelKey[] = [];
  // Optional fields (timeoutSeconds) may be set on one side only.
  for (const key of new Set([...Object.keys(to), ...Object.keys(draft)]) as Set<ModelKey>) {
    if (Object.is(draft[key], from[key])) continue;
    Object.assign(next, { [key]: draft[key] });
    if (!Object.is(to[key], from[key]) && !Object.is(to[key], draft[key])) clashes.push(key);
  }
  return { draft: next, clashes };
}

/** Whether the form's model differs from `saved` in any field. */
function differs(draft: ModelSettings, saved: ModelSettings): boolean {
  const keys = new Set([...Object.keys(draft), ...Object.keys(saved)]) as Set<ModelKey>;
  return [...keys].some((key) => !Object.is(draft[key], saved[key]));
}

/**
 * The model connection: off (offline summarizer) or an OpenAI-compatible endpoint. Saved as a
 * whole (Save model, or Enter in a field); while the form differs from the saved model a note
 * says so, and Escape puts the saved model back.
 */
function ModelForm({ settings, onSaved, onStale }: { settings: Settings } & Saving) {
  const stored = settings.model;
  /** The stored model the form last showed (null: none), named as `expected` by a save. */
  const [base, setBase] = useState<ModelSettings | null>(stored);
  const [draft, setDraft] = useState<ModelSettings>(stored ?? NEW_MODEL);
  const [error, setError] = useState<string | null>(null);
  const [clashes, setClashes] = useState<ModelKey[]>([]);
  if (JSON.stringify(stored) !== JSON.stringify(base)) {
    // Removed elsewhere: the fields stay, so Save model sets them again.
    if (stored !== null) {
      const rebased = rebaseModel(draft, base ?? NEW_MODEL, stored);
      setDraft(rebased.draft);
      setClashes(rebased.clashes);
    }
    setBase(stored);
  }
  const save = async (model: ModelSettings | null) => {
    try {
      const saved = await call("settings:set", { key: "model", value: model, expected: base });
      setClashes([]);
      setError(null);
      onSaved(saved);
    } catch (caught) {
      setError(failed(caught, onStale));
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
  const unsaved = differs(draft, base ?? NEW_MODEL);
  return (
    <fieldset
      className="model-form"
      onKeyDown={(event) => {
        // Enter in a field saves, as in the other settings fields.
        if (event.key === "Enter" && event.target instanceof HTMLInputElement) {
          event.preventDefault();
          void save(draft);
        }
        if (event.key !== "Escape" || !unsaved) return;
        // Back to the saved model; the Escape goes no further (it would cancel work).
        event.stopPropagation();
        setDraft(base ?? NEW_MODEL);
        setClashes([]);
        setError(null);
      }}
    >
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
      <div className="setting-field">
        <label htmlFor={fieldId("model.timeoutSeconds")}>Timeout without a token (s)</label>
        <input
          id={fieldId("model.timeoutSeconds")}
          type="number"
          placeholder="600"
          value={draft.timeoutSeconds ?? ""}
          onChange={(event) => {
            // Empty: the default (600 s), as the setting left unset.
            const { timeoutSeconds: _old, ...rest } = draft;
            const value = event.target.value;
            setDraft(value === "" ? rest : { ...rest, timeoutSeconds: Number(value) });
          }}
        />
      </div>
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
      {clashes.length > 0 && (
        <p className="note" role="status" data-testid="model-changed-elsewhere">
          Changed elsewhere while you were editing:{" "}
          {clashes.map((key) => `${key} = ${String(stored?.[key])}`).join(", ")}. Save model saves yours.
        </p>
      )}
      {unsaved && (
        <p className="note" role="status" data-testid="model-unsaved">
          Not saved yet: Save model (or Enter) saves it, Escape puts the saved model back. Test connection
          tests the saved model.
        </p>
      )}
      <ErrorLine message={error} />
    </fieldset>
  );
}

export function SettingsForm({ settings, onSaved, onStale }: { settings: Settings } & Saving) {
  const field = (label: string, key: string, kind: FieldProps["kind"], value: unknown, hint?: string): ReactNode => (
    <SettingField
      key={key}
      label={label}
      settingKey={key}
      value={value}
      kind={kind}
      onSaved={onSaved}
      onStale={onStale}
      {...(hint === undefined ? {} : { hint })}
    />
  );
  const { compaction, branchSummary, retry, images } = settings;
  return (
    <div className="settings-form" data-testid="settings-form">
      <ModelForm settings={settings} onSaved={onSaved} onStale={onStale} />
      <fieldset>
        <legend>Compaction</legend>
        {field("Automatic compaction", "compaction.enabled", "checkbox", compaction.enabled)}
        {field("Reserve tokens", "compaction.reserveTokens", "number", compaction.reserveTokens)}
        {field("Keep recent tokens", "compaction.keepRecentTokens", "number", compaction.keepRecentTokens)}
        {field("Continue after a threshold compaction", "compaction.autoContinue", "checkbox", compaction.autoContinue)}
        {field("Remote summary endpoint", "compaction.remoteEndpoint", "text", compaction.remoteEndpoint, "none")}
        {field("Remote endpoint timeout without an answer (s)", "compaction.remoteTimeoutSeconds", "number", compaction.remoteTimeoutSeconds)}
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
