/**
 * Fresh entry ids for entries Canopy appends (SPEC §1.4): 8 lowercase hex chars, re-drawn while
 * already used (up to 100 tries), then a 16-hex fallback. Randomness comes from Web Crypto when
 * the runtime has it (Node, browsers, Electron), else Math.random; tests inject their own.
 */

/** Anything that can tell whether an id is taken (a Set, a Map, …). */
export interface UsedIds {
  has(id: string): boolean;
}

/** Returns a fresh id that is not in `used`. */
export type IdGenerator = (used: UsedIds) => string;

type RandomSource = { getRandomValues<T extends Uint8Array>(array: T): T };

function randomHex(chars: number): string {
  const bytes = new Uint8Array(Math.ceil(chars / 2));
  const crypto = (globalThis as { crypto?: RandomSource }).crypto;
  if (crypto && typeof crypto.getRandomValues === "function") crypto.getRandomValues(bytes);
  else for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(Math.random() * 256);
  let hex = "";
  for (const byte of bytes) hex += byte.toString(16).padStart(2, "0");
  return hex.slice(0, chars);
}

export const randomEntryId: IdGenerator = (used) => {
  for (let attempt = 0; attempt < 100; attempt++) {
    const id = randomHex(8);
    if (!used.has(id)) return id;
  }
  let id = randomHex(16);
  while (used.has(id)) id = randomHex(16);
  return id;
};

/** Deterministic ids for tests: "00000001", "00000002", … skipping used ones. */
export function sequentialIds(start = 1): IdGenerator {
  let next = start;
  return (used) => {
    let id = next.toString(16).padStart(8, "0");
    while (used.has(id)) {
      next++;
      id = next.toString(16).padStart(8, "0");
    }
    next++;
    return id;
  };
}
