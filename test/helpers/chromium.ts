/**
 * Launches Debian's Chromium through playwright-core with the flags that work on these
 * machines (playwright gives every launch a fresh temporary profile). Fails with a clear message when Chromium is not installed.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { type Browser, chromium } from "playwright-core";

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** `extraArgs`: more Chromium flags (the tree bench lifts the frame-rate limit). */
export async function launchChromium(extraArgs: readonly string[] = []): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `Chromium not found at ${CHROMIUM_PATH}: install it with \`apt-get install -y chromium\` (bash .ci/run does) or set CHROMIUM_PATH`,
    );
  }
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      ...extraArgs,
    ],
  });
}

export function artifactsDir(): string {
  const dir = path.resolve(import.meta.dirname, "..", "..", "test-artifacts");
  return dir;
}
