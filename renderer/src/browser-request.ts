/**
 * One browser-mode request over HTTP with the page's token. A request that gets no answer (the
 * server stopped) says so and what to do: each `npm run serve` prints a new token, so the page
 * only recovers from the URL it prints.
 */
import { EXPORT_FILE_TYPE, EXPORT_RESULT_HEADER } from "../../core/api/contract.ts";
import type { ApiResult, ExportResult } from "../../core/api/dto.ts";

export const UNREACHABLE_MESSAGE =
  "Canopy is not reachable: its server (npm run serve) stopped. Start it again and open the URL it prints";

/** POSTs `input` to the channel with the page's token; null when no answer came (server stopped). */
async function post(
  channel: string,
  input: unknown,
  token: string,
  fetchImpl: typeof fetch,
  accept?: string,
): Promise<Response | null> {
  try {
    return await fetchImpl(`/api/${encodeURIComponent(channel)}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-canopy-token": token,
        ...(accept === undefined ? {} : { accept }),
      },
      body: JSON.stringify(input ?? {}),
    });
  } catch {
    return null;
  }
}

const UNREACHABLE: ApiResult<never> = { ok: false, error: { code: "io_error", message: UNREACHABLE_MESSAGE } };

export async function browserRequest(
  channel: string,
  input: unknown,
  token: string,
  fetchImpl: typeof fetch = fetch,
): Promise<ApiResult<unknown>> {
  const response = await post(channel, input, token, fetchImpl);
  if (response === null) return UNREACHABLE;
  return (await response.json()) as ApiResult<unknown>;
}

/**
 * A browser-mode export as the file itself: the body goes into a Blob as it arrives, never
 * decoded into a string (see EXPORT_FILE_TYPE). Errors are the contract's answer.
 */
export async function browserExportFile(
  input: unknown,
  token: string,
): Promise<ApiResult<{ file: Blob; result: ExportResult }>> {
  const response = await post("session:export", input, token, fetch, EXPORT_FILE_TYPE);
  if (response === null) return UNREACHABLE;
  if (!(response.headers.get("content-type") ?? "").startsWith(EXPORT_FILE_TYPE))
    return (await response.json()) as ApiResult<never>;
  const result = JSON.parse(decodeURIComponent(response.headers.get(EXPORT_RESULT_HEADER) ?? "%7B%7D")) as ExportResult;
  return { ok: true, value: { file: await response.blob(), result } };
}
