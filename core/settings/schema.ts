/**
 * Canopy's settings (SPEC §10.1 with Canopy's model connection, D16/D17): the zod schema with
 * defaults, the resulting type, and dotted-path access used by `settings get|set` and the UI.
 */
import { z } from "zod";
import { issueInWords } from "./issue-words.ts";

const tokens = z.number().int().min(0).max(10_000_000);

/**
 * An http(s) URL without user info: fetch refuses such a URL and its error repeats it whole,
 * password included, on the page and in logs; the key belongs in the environment.
 */
const httpUrl = z.url({ protocol: /^https?$/ }).refine((value) => !/^[a-z]+:\/\/[^/?#]*@/i.test(value), {
  message:
    "needs a URL without a user name or password: give the API key in the environment variable apiKeyEnv names",
});

export const modelSettingsSchema = z
  .object({
    /** OpenAI-compatible base URL, e.g. https://api.openai.com/v1 or http://127.0.0.1:11434/v1 */
    baseUrl: httpUrl,
    /** Model id as the endpoint names it. */
    id: z.string().trim().min(1),
    contextWindow: z.number().int().min(1024).max(10_000_000).default(128_000),
    /** Environment variable holding the API key (browser mode and CLI). */
    apiKeyEnv: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
      // A key pasted here would be stored in the library and shown wherever the name is: a long
      // run of letters and digits mixing lower case and digits is a key (gsk_…, hf_…, hex), not a name.
      .refine(
        (name) => !(name.match(/[A-Za-z0-9]{16,}/g) ?? []).some((run) => /[a-z]/.test(run) && /\d/.test(run)),
        {
          message:
            "looks like an API key itself, not the name of a variable: give the name of the environment variable that holds the key (as OPENAI_API_KEY)",
        },
      )
      .default("OPENAI_API_KEY"),
    stream: z.boolean().default(true),
    /** Send reasoning_effort "high" to summary calls (only for reasoning models). */
    reasoning: z.boolean().default(false),
    /**
     * How long a request may get nothing from the model (no reply yet, or a streamed one that
     * stalls) before it ends as timed out; unset: 600 (the SDK's 10 minutes).
     */
    timeoutSeconds: z.number().int().min(1).max(86_400).optional(),
  })
  .strict();

export const settingsSchema = z
  .object({
    compaction: z
      .object({
        enabled: z.boolean().default(true),
        reserveTokens: tokens.default(16384),
        keepRecentTokens: tokens.min(1).default(20000),
        autoContinue: z.boolean().default(true),
        remoteEndpoint: httpUrl.nullable().default(null),
        /** How long the remote endpoint may send nothing (no answer yet, or its body stalls) before it ends as timed out. */
        remoteTimeoutSeconds: z.number().int().min(1).max(86_400).default(600),
      })
      .strict()
      .prefault({}),
    branchSummary: z
      .object({
        enabled: z.boolean().default(false),
        reserveTokens: tokens.default(16384),
      })
      .strict()
      .prefault({}),
    retry: z
      .object({
        enabled: z.boolean().default(true),
        maxRetries: z.number().int().min(0).max(20).default(3),
        baseDelayMs: z.number().int().min(0).max(600_000).default(2000),
      })
      .strict()
      .prefault({}),
    /** §3.6 step 4: images in user messages and tool results are sent as a notice instead. */
    images: z
      .object({ blockImages: z.boolean().default(false) })
      .strict()
      .prefault({}),
    /** The summarization / chat model; null → the built-in offline summarizer (D16). */
    model: modelSettingsSchema.nullable().default(null),
    /** Candidate models tried after the current one by automatic compaction (D17). */
    fallbackModels: z.array(modelSettingsSchema).max(10).default([]),
  })
  .strict();

export type Settings = z.infer<typeof settingsSchema>;
export type ModelSettings = z.infer<typeof modelSettingsSchema>;

export const DEFAULT_SETTINGS: Settings = settingsSchema.parse({});

/** Every settable dotted key with its current value ("compaction.reserveTokens" → 16384). */
export function flattenSettings(settings: Settings): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const walk = (value: unknown, prefix: string) => {
    if (value !== null && typeof value === "object" && !Array.isArray(value) && prefix.split(".").length < 2) {
      for (const [key, inner] of Object.entries(value)) walk(inner, prefix ? `${prefix}.${key}` : key);
    } else {
      out[prefix] = value;
    }
  };
  walk(settings, "");
  return out;
}

const MODEL_KEYS = Object.keys(modelSettingsSchema.shape).map((key) => `model.${key}`);

export const SETTING_KEYS: readonly string[] = [...Object.keys(flattenSettings(DEFAULT_SETTINGS)), ...MODEL_KEYS];

/** Reads a dotted key; undefined for an unknown key. */
export function getSettingAt(settings: Settings, key: string): unknown {
  let cursor: unknown = settings;
  for (const part of key.split(".")) {
    if (cursor === null || typeof cursor !== "object" || !Object.hasOwn(cursor, part)) return undefined;
    cursor = (cursor as Record<string, unknown>)[part];
  }
  return cursor;
}

export type SettingsUpdate = { ok: true; settings: Settings } | { ok: false; message: string };

/** Sets a dotted key and validates the whole result; the message names the key and the rule. */
export function setSettingAt(settings: Settings, key: string, value: unknown): SettingsUpdate {
  if (!SETTING_KEYS.includes(key)) {
    return { ok: false, message: `unknown setting "${key}" (known: ${SETTING_KEYS.join(", ")})` };
  }
  const copy = JSON.parse(JSON.stringify(settings)) as Record<string, unknown>;
  const parts = key.split(".");
  if (parts[0] === "model" && parts.length > 1 && copy.model === null) {
    return { ok: false, message: `no model is configured yet: set "model" first (JSON with baseUrl and id)` };
  }
  let cursor = copy;
  for (const part of parts.slice(0, -1)) cursor = cursor[part] as Record<string, unknown>;
  cursor[parts.at(-1) as string] = value;
  const parsed = settingsSchema.safeParse(copy);
  if (!parsed.success) {
    // A number beyond the safe-integer range fails zod's int check first ("expected int to be
    // <=9007199254740991"); the field's own bound, the next issue, is what the user needs.
    const issues = parsed.error.issues;
    const issue = issues.find((i) => !("origin" in i && i.origin === "int")) ?? issues[0];
    if (!issue) return { ok: false, message: `${key}: invalid value` };
    const where = issue.path.length > 0 ? issue.path.join(".") : key;
    const input = getSettingAt(copy as Settings, where);
    return { ok: false, message: `${where}: ${issueInWords(issue, input)}` };
  }
  return { ok: true, settings: parsed.data };
}
