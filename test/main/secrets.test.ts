// API keys (DESIGN §3): encrypted with a (fake) safeStorage into the data folder, never plain
// text on disk, never returned by the API; the environment in browser mode and the CLI.
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createApi } from "../../main/api/dispatch.ts";
import { createAppContext } from "../../main/app-context.ts";
import {
  createElectronSecretStore,
  createEnvSecretStore,
  type SafeStorageLike,
  SECRETS_FILE,
} from "../../main/secrets.ts";
import { type FakeServer, startFakeOpenAiServer } from "../helpers/fake-openai-server.ts";

const SECRET = "sk-live-0123456789abcdef";

/** A reversible stand-in for the OS keyring: XOR with a key plus a header, like a real cipher text. */
function fakeSafeStorage(
  options: { available?: boolean; backend?: string } = {},
): SafeStorageLike & { calls: string[] } {
  const calls: string[] = [];
  const xor = (bytes: Buffer) => Buffer.from(bytes.map((byte) => byte ^ 0x5a));
  return {
    calls,
    isAsyncEncryptionAvailable: async () => options.available ?? true,
    encryptStringAsync: async (text) => {
      calls.push("encrypt");
      return Buffer.concat([Buffer.from("v10"), xor(Buffer.from(text, "utf8"))]);
    },
    decryptStringAsync: async (data) => {
      calls.push("decrypt");
      if (data.subarray(0, 3).toString() !== "v10")
        throw new Error("Error while decrypting the ciphertext provided");
      return { result: xor(data.subarray(3)).toString("utf8"), shouldReEncrypt: false };
    },
    getSelectedStorageBackend: () => options.backend ?? "gnome_libsecret",
  };
}

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "canopy-secrets-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("the desktop store (safeStorage)", () => {
  it("writes only cipher text, readable again by a new store; status never carries the value", async () => {
    const store = await createElectronSecretStore({
      safeStorage: fakeSafeStorage(),
      dataDir: dir,
      env: {},
      platform: "linux",
    });
    await store.set("OPENAI_API_KEY", ` ${SECRET} `);
    const file = path.join(dir, SECRETS_FILE);
    const text = readFileSync(file, "utf8");
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(Buffer.from(SECRET).toString("base64"));
    expect(JSON.parse(text)).toEqual({ version: 1, keys: { OPENAI_API_KEY: expect.any(String) } });
    if (process.platform !== "win32") expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(store.get("OPENAI_API_KEY")).toBe(SECRET);

    const reopened = await createElectronSecretStore({
      safeStorage: fakeSafeStorage(),
      dataDir: dir,
      env: {},
      platform: "linux",
    });
    expect(reopened.get("OPENAI_API_KEY")).toBe(SECRET);
    const status = reopened.status(["OPENAI_API_KEY", "OTHER_KEY"]);
    expect(status).toEqual({
      storage: "safe-storage",
      canStore: true,
      note: null,
      keys: [
        { name: "OPENAI_API_KEY", set: true, source: "stored" },
        { name: "OTHER_KEY", set: false, source: null },
      ],
    });
    expect(JSON.stringify(status)).not.toContain(SECRET);

    await reopened.set("OPENAI_API_KEY", null);
    expect(reopened.get("OPENAI_API_KEY")).toBeUndefined();
    expect(JSON.parse(readFileSync(file, "utf8")).keys).toEqual({});
  });

  it("falls back to the environment for a key that is not stored", async () => {
    const store = await createElectronSecretStore({
      safeStorage: fakeSafeStorage(),
      dataDir: dir,
      env: { MY_KEY: "from-env" },
    });
    expect(store.get("MY_KEY")).toBe("from-env");
    expect(store.status(["MY_KEY"]).keys).toEqual([{ name: "MY_KEY", set: true, source: "env" }]);
  });

  it("refuses to store keys without a real keyring (Linux basic_text) or without encryption", async () => {
    for (const fake of [fakeSafeStorage({ backend: "basic_text" }), fakeSafeStorage({ available: false })]) {
      const store = await createElectronSecretStore({
        safeStorage: fake,
        dataDir: dir,
        env: {},
        platform: "linux",
      });
      await expect(store.set("OPENAI_API_KEY", SECRET)).rejects.toMatchObject({ code: "unsupported" });
      expect(store.status([])).toMatchObject({
        canStore: false,
        note: expect.stringMatching(/environment variables/),
      });
      expect(existsSync(path.join(dir, SECRETS_FILE))).toBe(false);
      expect(fake.calls).not.toContain("encrypt");
    }
  });

  it("reports a damaged key file and a key it cannot decrypt instead of failing to start", async () => {
    writeFileSync(path.join(dir, SECRETS_FILE), "{ not json");
    const damaged = await createElectronSecretStore({
      safeStorage: fakeSafeStorage(),
      dataDir: dir,
      env: {},
    });
    expect(damaged.status([]).note).toMatch(/not a valid key file/);
    writeFileSync(
      path.join(dir, SECRETS_FILE),
      JSON.stringify({ version: 1, keys: { OLD_KEY: Buffer.from("garbage").toString("base64") } }),
    );
    const unreadable = await createElectronSecretStore({
      safeStorage: fakeSafeStorage(),
      dataDir: dir,
      env: {},
    });
    expect(unreadable.get("OLD_KEY")).toBeUndefined();
    expect(unreadable.status([])).toMatchObject({
      note: expect.stringMatching(/OLD_KEY could not be decrypted/),
      keys: [{ name: "OLD_KEY", set: false }],
    });
  });
});

describe("the environment store (browser mode, CLI)", () => {
  it("reads trimmed keys and refuses to store, naming the variable", async () => {
    const store = createEnvSecretStore({ MY_KEY: " abc ", EMPTY: " " });
    expect(store.get("MY_KEY")).toBe("abc");
    expect(store.get("EMPTY")).toBeUndefined();
    await expect(store.set("MY_KEY", "x")).rejects.toThrow(
      "API keys are not stored in browser mode or by the CLI: set the environment variable MY_KEY before starting Canopy (it is set now, and that key is used)",
    );
    expect(store.status(["MY_KEY", "EMPTY"])).toMatchObject({
      storage: "env",
      canStore: false,
      keys: [
        { name: "MY_KEY", set: true, source: "env" },
        { name: "EMPTY", set: false, source: null },
      ],
    });
  });
});

describe("secrets: channels", () => {
  let server: FakeServer;
  beforeEach(async () => {
    server = await startFakeOpenAiServer();
  });
  afterEach(async () => {
    await server.close();
  });

  it("stores a key the model then uses, and reports only whether it is set", async () => {
    const secrets = await createElectronSecretStore({
      safeStorage: fakeSafeStorage(),
      dataDir: dir,
      env: {},
    });
    const api = createApi(
      createAppContext({
        dbPath: path.join(dir, "library.db"),
        seedDemo: false,
        loadUserHooks: false,
        env: {},
        secrets,
      }),
    );
    try {
      await api.call("settings:set", {
        key: "model",
        value: { baseUrl: server.baseUrl, id: "fake-model", apiKeyEnv: "CANOPY_TEST_KEY" },
      });
      expect(await api.call("secrets:status", {})).toMatchObject({
        ok: true,
        value: { keys: [{ name: "CANOPY_TEST_KEY", set: false }] },
      });
      const stored = await api.call("secrets:set", { name: "CANOPY_TEST_KEY", value: SECRET });
      expect(stored).toMatchObject({
        ok: true,
        value: { keys: [{ name: "CANOPY_TEST_KEY", set: true, source: "stored" }] },
      });
      expect(JSON.stringify(stored)).not.toContain(SECRET);
      expect(JSON.stringify(await api.call("secrets:status", { names: ["CANOPY_TEST_KEY"] }))).not.toContain(
        SECRET,
      );
      expect((await api.call("settings:test-connection", {})).ok).toBe(true);
      expect(server.requests.at(-1)?.headers.authorization).toBe(`Bearer ${SECRET}`);
      expect(await api.call("secrets:set", { name: "not a name", value: "x" })).toMatchObject({
        ok: false,
        error: { code: "invalid_input" },
      });
    } finally {
      api.ctx.db.close();
    }
  });

  it("refuses secrets:set in browser mode with a clear message", async () => {
    const api = createApi(
      createAppContext({
        dbPath: path.join(dir, "library.db"),
        seedDemo: false,
        loadUserHooks: false,
        env: {},
      }),
    );
    try {
      expect(await api.call("secrets:set", { name: "OPENAI_API_KEY", value: SECRET })).toEqual({
        ok: false,
        error: {
          code: "unsupported",
          message:
            "API keys are not stored in browser mode or by the CLI: set the environment variable OPENAI_API_KEY before starting Canopy",
        },
      });
    } finally {
      api.ctx.db.close();
    }
  });
});
