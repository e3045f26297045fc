/**
 * Running connection tests (Settings → Test connection) by the id their window made, so a cancel
 * aborts the one it names. A cancel may overtake its test on the way (two HTTP requests in browser
 * mode): an id cancelled while nothing runs is remembered briefly, and that test ends at once.
 */

/** How long a cancel that found no test is remembered for the test it overtook (ms). */
export const EARLY_CANCEL_MS = 10_000;
/** At most this many early cancels are remembered (the oldest are forgotten first). */
const MAX_EARLY_CANCELS = 100;

export class ConnectionTests {
  private readonly running = new Map<string, AbortController>();
  /** Ids cancelled while no test with them ran, with when. */
  private readonly early = new Map<string, number>();

  private readonly now: () => number;

  constructor(now: () => number = Date.now) {
    this.now = now;
  }

  has(testId: string): boolean {
    return this.running.has(testId);
  }

  /** Registers a test; its signal is already aborted when a cancel for this id came first. */
  start(testId: string): AbortController {
    const controller = new AbortController();
    this.running.set(testId, controller);
    this.forgetOld();
    if (this.early.delete(testId)) controller.abort();
    return controller;
  }

  end(testId: string): void {
    this.running.delete(testId);
  }

  /** Aborts the running test with this id (true); else remembers the id for a test yet to come (false). */
  cancel(testId: string): boolean {
    const controller = this.running.get(testId);
    if (controller) {
      controller.abort();
      return true;
    }
    this.forgetOld();
    this.early.delete(testId);
    this.early.set(testId, this.now());
    while (this.early.size > MAX_EARLY_CANCELS) {
      const oldest = this.early.keys().next().value;
      if (oldest === undefined) break;
      this.early.delete(oldest);
    }
    return false;
  }

  private forgetOld(): void {
    const cutoff = this.now() - EARLY_CANCEL_MS;
    // Insertion order is time order: stop at the first one still fresh.
    for (const [id, at] of this.early) {
      if (at > cutoff) break;
      this.early.delete(id);
    }
  }
}
