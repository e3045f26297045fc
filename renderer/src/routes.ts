/**
 * Deep links: `#/session/<sessionId>?leaf=<entryId>` opens a session with that entry selected.
 * The app's own navigation writes the same routes, so any view can be bookmarked or shared.
 */
export interface Route {
  sessionId: string | null;
  leafId: string | null;
}

export function parseRoute(hash: string): Route {
  const match = /^#\/session\/([^?]+)(?:\?(.*))?$/.exec(hash);
  if (!match?.[1]) return { sessionId: null, leafId: null };
  const params = new URLSearchParams(match[2] ?? "");
  return { sessionId: decodeOrRaw(match[1]), leafId: params.get("leaf") };
}

/** A hand-typed link may hold a broken escape (`%E0`): it is then looked up as typed, not thrown on. */
function decodeOrRaw(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

export function formatRoute(route: Route): string {
  if (!route.sessionId) return "#/";
  const leaf = route.leafId ? `?leaf=${encodeURIComponent(route.leafId)}` : "";
  return `#/session/${encodeURIComponent(route.sessionId)}${leaf}`;
}
