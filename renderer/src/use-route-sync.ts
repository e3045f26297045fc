/**
 * Keeps the URL hash and the store in step: a deep link opens its session and entry on load
 * (and on hash changes), and the app's own selection is written back as the same route (and
 * remembered for the next start, last-session.ts).
 */
import { useEffect } from "react";
import { formatRoute, parseRoute } from "./routes.ts";
import { useCanopy } from "./store/index.ts";
import { saveLastSession } from "./store/last-session.ts";

export function useRouteSync(): void {
  const sessionId = useCanopy((state) => state.selectedSessionId);
  const entryId = useCanopy((state) => state.selectedEntryId);

  useEffect(() => {
    const open = async () => {
      const route = parseRoute(window.location.hash);
      const state = useCanopy.getState();
      if (!route.sessionId) return;
      if (route.sessionId !== state.selectedSessionId) await state.selectSession(route.sessionId);
      if (route.leafId !== useCanopy.getState().selectedEntryId) await useCanopy.getState().selectEntry(route.leafId);
    };
    void open();
    window.addEventListener("hashchange", open);
    return () => window.removeEventListener("hashchange", open);
  }, []);

  useEffect(() => {
    if (!sessionId) return;
    saveLastSession(sessionId);
    const next = formatRoute({ sessionId, leafId: entryId });
    if (window.location.hash !== next) window.history.replaceState(null, "", next);
  }, [sessionId, entryId]);
}
