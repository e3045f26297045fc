/**
 * API keys (DESIGN §3): kept in the main process only. The desktop store encrypts them with
 * Electron's `safeStorage` into `secrets.json` in the data folder (never plain text on disk);
 * browser mode and the CLI read them from the environment variable the model names.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import type { SecretsStatusDto } from "../core/api/dto-app.ts";
import { ApiFailure } from "./api/errors.ts";
import { replaceOwnFile } from "./library/output-file.ts";

/** The part of Electron's `safeStorage` the store uses (injected, so tests pass a fake). */
export interface SafeStorageLike {
  isAsyncEncryptionAvailable(): Promise<boolean>;
  encryptStringAsync(plainText: string): Promise<Buffer>;
  decryptStringAsync(encrypted: Buffer): Promise<{ result: string; shouldReEncrypt: boolean }>;
  /** Linux only: which password store protects the key. */
  getSelectedStorageBackend?(): string;
}

export interface SecretStore {
  /** "safe-storage": the desktop app; "env": browser mode and the CLI. */
  readonly kind: "safe-storage" | "env";
  /** The key for a name (a model's `apiKeyEnv`): the stored one, else the environment's. */
  get(name: string): string | undefined;
  /** Stores (or with null removes) a key; refused where keys cannot be stored. */
  set(name: string, value: string | null): Promise<void>;
  /** Whether each key is set and where from — never a value. */
  status(names: readonly string[]): SecretsStatusDto;
}

export const SECRETS_FILE = "secrets.json";

/** Names are environment-variable names, like a model's `apiKeyEnv`. */
export const SECRET_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

function fromEnv(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name];
  return value && value.trim() !== "" ? value.trim() : undefined;
}

export function createEnvSecretStore(env: NodeJS.ProcessEnv = process.env): SecretStore {
  return {
    kind: "env",
    get: (name) => fromEnv(env, name),
    async set(name) {
      const inUse = fromEnv(env, name) ? ` (it is set now, and that key is used)` : "";
      throw new ApiFailure(
        "unsupported",
        `API keys are not stored in browser mode or by the CLI: set the environment variable ${name} before starting Canopy${inUse}`,
      );
    },
    status: (names) => ({
      storage: "env",
      canStore: false,
      note: "Keys come from environment variables; set them before starting Canopy.",
      keys: [...new Set(names)].map((name) => ({
        name,
        set: fromEnv(env, name) !== undefined,
        source: fromEnv(env, name) !== undefined ? "env" : null,
      })),
    }),
  };
}

const fileSchema = z.object({ version: z.literal(1), keys: z.record(z.string(), z.string()) }).strict();

export interface ElectronSecretStoreOptions {
  safeStorage: SafeStorageLike;
  /** The data folder; the keys go to `<dataDir>/secrets.json`. */
  dataDir: string;
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
}

/**
 * Opens the desktop store: decrypts the stored keys once (they stay in this process's memory,
 * so lookups are synchronous). On Linux without a keyring (`basic_text`) safeStorage would only
 * obfuscate, so keys are then not stored and the environment is the way.
 */
export async function createElectronSecretStore(options: ElectronSecretStoreOptions): Promise<SecretStore> {
  const { safeStorage, dataDir } = options;
  const env = options.env ?? process.env;
  const file = path.join(dataDir, SECRETS_FILE);
  const backend =
    (options.platform ?? process.platform) === "linux"
      ? safeStorage.getSelectedStorageBackend?.()
      : undefined;
  const available = (await safeStorage.isAsyncEncryptionAvailable()) && backend !== "basic_text";
  const unavailableNote =
    backend === "basic_text"
      ? "No system keyring was found (safeStorage would only obfuscate keys): set them as environment variables instead."
      : "Encryption is not available on this system: set keys as environment variables instead.";
  const encrypted = new Map<string, string>();
  const plain = new Map<string, string>();
  const problems: string[] = [];

  if (existsSync(file)) {
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(file, "utf8"));
    } catch (error) {
      raw = String(error);
    }
    const parsed = fileSchema.safeParse(raw);
    if (!parsed.success) problems.push(`${SECRETS_FILE} is not a valid key file; it was ignored`);
    for (const [name, value] of Object.entries(parsed.success ? parsed.data.keys : {})) {
      encrypted.set(name, value);
      if (!available) continue;
      try {
        plain.set(name, (await safeStorage.decryptStringAsync(Buffer.from(value, "base64"))).result);
      } catch {
        // A key encrypted under another OS account or keyring cannot be read; it is reported.
        problems.push(`the stored key ${name} could not be decrypted; set it again`);
      }
    }
  }

  const write = () => {
    const payload = { version: 1, keys: Object.fromEntries(encrypted) };
    replaceOwnFile(file, `${JSON.stringify(payload, null, 2)}\n`, 0o600);
  };

  return {
    kind: "safe-storage",
    get: (name) => plain.get(name) ?? fromEnv(env, name),
    async set(name, value) {
      if (!SECRET_NAME.test(name)) throw new ApiFailure("invalid_input", `not a key name: ${name}`);
      if (value === null || value.trim() === "") {
        encrypted.delete(name);
        plain.delete(name);
        write();
        return;
      }
      if (!available) throw new ApiFailure("unsupported", unavailableNote);
      const cipher = await safeStorage.encryptStringAsync(value.trim());
      encrypted.set(name, cipher.toString("base64"));
      plain.set(name, value.trim());
      write();
    },
    status: (names) => ({
      storage: "safe-storage",
      canStore: available,
      note: [available ? null : unavailableNote, ...problems].filter((x) => x !== null).join(" ") || null,
      keys: [...new Set([...names, ...encrypted.keys()])].map((name) => {
        const source = plain.has(name) ? "stored" : fromEnv(env, name) !== undefined ? "env" : null;
        return { name, set: source !== null, source };
      }),
    }),
  };
}
