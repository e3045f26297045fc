/**
 * Tells every client (library:write-waiting) how many of this process's edits and job saves have
 * waited long for another process's write lock, so a page can say what its edit or reply waits for.
 */
import type { EventBus } from "../api/events.ts";

const waitingOn = new WeakMap<EventBus, number>();

/** The `onLong` of untilWriteLockFree for one wait: counts it in, then out, and tells the count. */
export function tellLockWait(events: EventBus): (waiting: boolean) => void {
  return (waiting) => {
    const count = Math.max(0, (waitingOn.get(events) ?? 0) + (waiting ? 1 : -1));
    waitingOn.set(events, count);
    events.emit("library:write-waiting", { waiting: count });
  };
}
