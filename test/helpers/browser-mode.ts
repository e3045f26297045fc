/**
 * Shared setup of the browser tests and the benches: the renderer built into a folder of the
 * caller's own (the benches; a test uses the run's shared build, shared-renderer.ts), and
 * contract calls over HTTP with the page's token.
 */
import type { BrowserMode } from "../../main/serve.ts";

/**
 * Builds the renderer into `outDir` (a folder of the caller's own), as `npm start` does. A test
 * file calls `sharedRenderer()` instead (one build per run), unless it needs a build of its own.
 */
export async function buildRendererInto(outDir: string): Promise<string> {
  // Loaded here: Vite takes ~0.3 s of CPU to load, and most importers only want apiCall.
  const { buildRenderer } = await import("../../scripts/build.ts");
  await buildRenderer(outDir);
  return outDir;
}

/** One contract call over browser mode's HTTP API; throws with the contract's error message. */
export async function apiCall<T>(mode: BrowserMode, channel: string, input: unknown): Promise<T> {
  const response = await fetch(`http://127.0.0.1:${mode.port}/api/${channel}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-canopy-token": mode.token },
    body: JSON.stringify(input),
  });
  const result = (await response.json()) as { ok: boolean; value: T; error?: { message: string } };
  if (!result.ok) throw new Error(result.error?.message);
  return result.value;
}
