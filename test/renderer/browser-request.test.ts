/** Browser-mode requests: answers pass through; a server that stopped is reported with what to do. */
import { describe, expect, it } from "vitest";
import { browserRequest } from "../../renderer/src/browser-request.ts";

describe("browserRequest", () => {
  it("tells the user to restart the server and open its URL when the request gets no answer", async () => {
    const failing = (() => Promise.reject(new TypeError("Failed to fetch"))) as typeof fetch;
    const result = await browserRequest("library:list", {}, "t", failing);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe("io_error");
    expect(result.error.message).not.toContain("TypeError");
    expect(result.error.message).toMatch(/npm run serve.*open the URL it prints/);
  });

  it("passes the server's answer through, with the token", async () => {
    let sent: RequestInit | undefined;
    const answering = ((_url: string, init: RequestInit) => {
      sent = init;
      return Promise.resolve(new Response(JSON.stringify({ ok: true, value: [] })));
    }) as typeof fetch;
    expect(await browserRequest("library:list", {}, "tok", answering)).toEqual({ ok: true, value: [] });
    expect(((sent?.headers ?? {}) as Record<string, string>)["x-canopy-token"]).toBe("tok");
  });
});
