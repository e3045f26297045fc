/**
 * A contract channel POSTed over browser mode's HTTP API with the page's token, for the tests and
 * benches that read the raw answer (its bytes, headers or stream); apiCall (browser-mode.ts)
 * gives just the value.
 */

/**
 * POSTs `body` (JSON text) to `channel` on a browser-mode server (its page `url`, which carries the
 * token, and the `token`), asking for `accept` when given; the response as it comes.
 */
export function postChannel(
  server: { url: string; token: string },
  channel: string,
  body: string,
  accept?: string,
): Promise<Response> {
  return fetch(`${server.url.split("?")[0]}api/${channel}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(accept ? { accept } : {}),
      "x-canopy-token": server.token,
    },
    body,
  });
}
