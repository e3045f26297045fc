/**
 * One browser-mode request over HTTP with the page's token. A request that gets no answer (the
 * server stopped) says so and what to do: each `npm run serve` prints a new token, so the page
 * only recovers from the URL it prints.
 */
import type { ApiResult } from "../../core/api/dto.ts";

export const UNREACHABLE_MESSAGE =
  "Canopy is not reachable: its server (npm run serve) stopped. Start it again and open the URL it prints";

export async function browserRequest(
  channel: string,
  input: unknown,
  token: string,
  fetchImpl: typeof fetch = fetch,
): Promise<ApiResult<unknown>> {
  let response: Response;
  try {
    response = await fetchImpl(`/api/${encodeURIComponent(channel)}`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-canopy-token": token },
      body: JSON.stringify(input ?? {}),
    });
  } catch {
    return { ok: false, error: { code: "io_error", message: UNREACHABLE_MESSAGE } };
  }
  return (await response.json()) as ApiResult<unknown>;
}
