/**
 * Settings persisted in the library database (one validated JSON document), read with defaults
 * for anything missing, written only after validation, one key at a time in a write transaction.
 */
import type { CompactionSettings } from "../../core/compaction/types.ts";
import {
  DEFAULT_SETTINGS,
  getSettingAt,
  type ModelSettings,
  modelSettingsSchema,
  type Settings,
  setSettingAt,
  settingsSchema,
} from "../../core/settings/schema.ts";
import { ApiFailure } from "../api/errors.ts";
import type { Database } from "../store/open.ts";
import { getSetting, setSetting } from "../store/repos/settings.ts";
import { writeTransaction } from "../store/transactions.ts";

const KEY = "canopy.settings";

/**
 * A stored model that no longer validates whole (a sub-key retired, or out of range): the model
 * from its baseUrl and id, then every other sub-key that still validates; null without those two.
 */
function salvagedModel(value: unknown): ModelSettings | null {
  const whole = modelSettingsSchema.safeParse(value);
  if (whole.success) return whole.data;
  if (value === null || typeof value !== "object" || Array.isArray(value)) return null;
  const source = value as Record<string, unknown>;
  let model = modelSettingsSchema.safeParse({ baseUrl: source.baseUrl, id: source.id });
  if (!model.success) return null;
  for (const [key, inner] of Object.entries(source)) {
    const next = modelSettingsSchema.safeParse({ ...model.data, [key]: inner });
    if (next.success) model = next;
  }
  return model.data;
}

/** A stored group's value as far as it still validates (the models sub-key by sub-key). */
function salvagedValue(group: string, value: unknown): unknown {
  if (group === "model") return salvagedModel(value);
  if (group === "fallbackModels" && Array.isArray(value)) {
    return value.map(salvagedModel).filter((model) => model !== null);
  }
  return value;
}

export function loadSettings(db: Database): Settings {
  const stored = getSetting(db, KEY);
  if (stored === undefined || stored === null) return DEFAULT_SETTINGS;
  const parsed = settingsSchema.safeParse(stored);
  if (parsed.success) return parsed.data;
  // A document written by another version: keep what still validates, key by key.
  let settings = DEFAULT_SETTINGS;
  const source = stored as Record<string, Record<string, unknown> | unknown>;
  for (const [group, value] of Object.entries(source)) {
    if (value && typeof value === "object" && !Array.isArray(value) && group !== "model") {
      for (const [key, inner] of Object.entries(value)) {
        const result = setSettingAt(settings, `${group}.${key}`, inner);
        if (result.ok) settings = result.settings;
      }
    } else {
      const result = setSettingAt(settings, group, salvagedValue(group, value));
      if (result.ok) settings = result.settings;
    }
  }
  return settings;
}

/** The value JSON gives (key order aside, values compared as stored). */
function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

export interface SettingUpdate {
  settings: Settings;
  /** False when the key already held the value: nothing was written. */
  changed: boolean;
}

/**
 * Sets `key` in one write transaction (the read and the write: a CLI's `settings set` between
 * them would be lost). With `expected`, refused as a conflict when the key holds something else
 * now — a window that showed an older value must not overwrite what was set since.
 */
export function updateSetting(
  db: Database,
  key: string,
  value: unknown,
  expected?: { value: unknown },
): SettingUpdate {
  return writeTransaction(db, (): SettingUpdate => {
    const current = loadSettings(db);
    const now = getSettingAt(current, key);
    if (expected !== undefined && !sameJson(now, expected.value)) {
      throw new ApiFailure(
        "conflict",
        `${key} was changed elsewhere (it is now ${JSON.stringify(now ?? null)}): yours was not saved, so as not to overwrite that change`,
      );
    }
    const result = setSettingAt(current, key, value);
    if (!result.ok) throw new ApiFailure("invalid_input", result.message);
    if (sameJson(result.settings, current)) return { settings: current, changed: false };
    setSetting(db, KEY, result.settings);
    return { settings: result.settings, changed: true };
  })();
}

/** The compaction settings in core's shape (no remote endpoint = undefined; its timeout is main's). */
export function compactionSettingsOf(settings: Settings): CompactionSettings {
  const { remoteEndpoint, remoteTimeoutSeconds: _timeout, ...rest } = settings.compaction;
  return remoteEndpoint ? { ...rest, remoteEndpoint } : rest;
}
