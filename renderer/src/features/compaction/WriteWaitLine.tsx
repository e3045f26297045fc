/**
 * The line saying that an edit or a job's save waits for another Canopy process (a CLI import or
 * prune, a second app) to finish writing the library: shown while the server says one has waited
 * more than a second (library:write-waiting), gone when it may write.
 */
import { useEffect } from "react";
import { onEvent, onEventsConnected } from "../../api.ts";
import { useCanopy } from "../../store/index.ts";

export const WRITE_WAIT_TEXT =
  "Waiting for another Canopy process writing the library (a CLI import?) before saving; an edit is refused after 30 seconds, a reply or summary waits (Cancel stops it).";

export function WriteWaitLine() {
  const waiting = useCanopy((state) => state.writeWaiting);
  useEffect(() => {
    const off = onEvent("library:write-waiting", (payload) => useCanopy.setState({ writeWaiting: payload.waiting }));
    // Events missed while disconnected: the next wait tells again; none is assumed meanwhile.
    const offConnected = onEventsConnected(() => useCanopy.setState({ writeWaiting: 0 }));
    return () => {
      off();
      offConnected();
    };
  }, []);
  if (waiting === 0) return null;
  return (
    <p className="job-message ok" role="status" data-testid="write-wait">
      {WRITE_WAIT_TEXT}
    </p>
  );
}
