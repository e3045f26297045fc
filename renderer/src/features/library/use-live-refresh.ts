/**
 * Live refresh: main re-imports agent files as they grow (main/library/watch.ts) and says so;
 * the list reloads, and the open session reloads its tree and LLM view in place.
 */
import { useEffect } from "react";
import { onEvent } from "../../api.ts";
import { useCanopy } from "../../store/index.ts";

export function useLiveRefresh(): void {
  useEffect(() => {
    const offLibrary = onEvent("library:changed", (payload) => {
      const state = useCanopy.getState();
      void state.loadLibrary();
      const open = state.selectedSessionId;
      if (open && payload.sessionIds.includes(open)) state.refreshOpenSession(open);
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
