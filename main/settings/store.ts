/**
 * Settings persisted in the library database (one validated JSON document), read with defaults
 * for anything missing, written only after validation.
 */
import type { CompactionSettings } from "../../core/compaction/types.ts";
import { DEFAULT_SETTINGS, type Settings, setSettingAt, settingsSchema } from "../../core/settings/schema.ts";
import { ApiFailure } from "../api/errors.ts";
import type { Database } from "../store/open.ts";
import { getSetting, setSetting } from "../store/repos/settings.ts";

const KEY = "canopy.settings";

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
      const result = setSettingAt(settings, group, value);
      if (result.ok) settings = result.settings;
    }
  }
  return settings;
}

export function updateSetting(db: Database, key: string, value: unknown): Settings {
  const result = setSettingAt(loadSettings(db), key, value);
  if (!result.ok) throw new ApiFailure("invalid_input", result.message);
  setSetting(db, KEY, result.settings);
  return result.settings;
}

/** The compaction settings in core's shape (no remote endpoint = undefined). */
export function compactionSettingsOf(settings: Settings): CompactionSettings {
  const { remoteEndpoint, ...rest } = settings.compaction;
  return remoteEndpoint ? { ...rest, remoteEndpoint } : rest;
}
