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
    // Which hash change is the newest: one that finds a newer one came while it waited for its
    // session to load leaves the selection to that one (or it would undo it with its older route).
    let latest = 0;
    const open = async () => {
      const mine = ++latest;
      const route = parseRoute(window.location.hash);
      const state = useCanopy.getState();
      if (!route.sessionId) return;
      if (route.sessionId !== state.selectedSessionId) await state.selectSession(route.sessionId);
      if (mine !== latest) return;
      const { tree, selectedEntryId } = useCanopy.getState();
      if (route.leafId !== null && tree?.sessionId === route.sessionId && !tree.nodes.some((node) => node.id === route.leafId)) {
        // Mistyped, or an entry an undo took away since: the session at its view leaf, and why.
        useCanopy.getState().notify({
          level: "info",
          message: `The link's entry ${route.leafId} is not in this session: showing its view leaf.`,
          sessionId: route.sessionId,
        });
        if (selectedEntryId !== null) await useCanopy.getState().selectEntry(null);
        else window.history.replaceState(null, "", formatRoute({ sessionId: route.sessionId, leafId: null }));
        return;
      }
      if (route.leafId !== selectedEntryId) await useCanopy.getState().selectEntry(route.leafId);
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
