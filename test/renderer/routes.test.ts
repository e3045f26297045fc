/** Deep-link parsing: well-formed routes, and hand-typed ones that must not throw. */
import { describe, expect, it } from "vitest";
import { formatRoute, parseRoute } from "../../renderer/src/routes.ts";

describe("parseRoute", () => {
  it("reads a session and leaf written by formatRoute", () => {
    const hash = formatRoute({ sessionId: "a b/c", leafId: "e1" });
    expect(parseRoute(hash)).toEqual({ sessionId: "a b/c", leafId: "e1" });
  });

  it("does not throw on a malformed escape, keeping the id as typed", () => {
    expect(parseRoute("#/session/%E0")).toEqual({ sessionId: "%E0", leafId: null });
  });

  it("treats an unknown route as no session", () => {
    expect(parseRoute("#/nonsense")).toEqual({ sessionId: null, leafId: null });
  });
});
