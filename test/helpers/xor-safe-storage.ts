/**
 * A reversible stand-in for the OS keyring (Electron safeStorage) that two processes share:
 * XOR with a fixed byte behind a "v10" header, like a real cipher text.
 */
import type { SafeStorageLike } from "../../main/secrets.ts";

export function xorSafeStorage(): SafeStorageLike {
  const xor = (bytes: Buffer) => Buffer.from(bytes.map((byte) => byte ^ 0x5a));
  return {
    isAsyncEncryptionAvailable: async () => true,
    encryptStringAsync: async (text) => Buffer.concat([Buffer.from("v10"), xor(Buffer.from(text, "utf8"))]),
    decryptStringAsync: async (data) => {
      if (data.subarray(0, 3).toString() !== "v10") throw new Error("Error while decrypting the ciphertext provided");
      return { result: xor(data.subarray(3)).toString("utf8"), shouldReEncrypt: false };
    },
    getSelectedStorageBackend: () => "gnome_libsecret",
  };
}
