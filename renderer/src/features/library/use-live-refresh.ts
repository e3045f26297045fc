/**
 * Live refresh: main re-imports agent files as they grow (main/library/watch.ts) and says so;
 * the list reloads, and the open session reloads its tree and LLM view in place — or, deleted
 * from the library in another window, is left here too (with Undo, as after a delete here).
 */
import { useEffect } from "react";
import { onEvent } from "../../api.ts";
import { useCanopy } from "../../store/index.ts";
import { namedTitle } from "./SessionList.tsx";

export function useLiveRefresh(): void {
  useEffect(() => {
    const offLibrary = onEvent("library:changed", (payload) => {
      const state = useCanopy.getState();
      const open = state.selectedSessionId;
      const changed = open !== null && payload.sessionIds.includes(open);
      const summary = state.sessions.find((session) => session.id === open);
      const reload = state.loadLibrary();
      if (!changed || open === null) return;
      state.refreshOpenSession(open);
      // Deleted in another window (or the fork it was undone there): leave it here too, instead
      // of showing a tree and an LLM view that cannot load.
      void reload.then(() => {
        const now = useCanopy.getState();
        if (!summary || now.selectedSessionId !== open || now.libraryError !== null) return;
        if (now.sessions.some((session) => session.id === open)) return;
        void now.leaveDeletedElsewhere({ sessionId: open, title: namedTitle(summary) });
      });
    });
    const offSession = onEvent("session:changed", (payload) => {
      useCanopy.getState().refreshOpenSession(payload.sessionId);
    });
    return () => {
      offLibrary();
      offSession();
    };
  }, []);
}
