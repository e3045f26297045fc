/**
 * The pace of a streaming summary's or chat reply's progress events: each carries the whole text
 * so far, so one per chunk made a long one cost O(n²) bytes for every window (40,000 characters
 * in 2,500 chunks: 50 MB of events and 2,500 repaints). The first text goes out at once, then the
 * latest at most every `intervalMs`, and `finish` sends the last one still waiting. A text that
 * does not extend the previous one (a retried request starting over) first sends the one waiting,
 * then goes out at once — unless `rewritesAtOnce` is false (a text that changes in its middle as
 * it grows, such as two streams shown side by side): then it is paced like the others.
 */

/** How often a window hears a streaming summary or reply grow (ms). */
export const PROGRESS_INTERVAL_MS = 100;

export interface PacedText {
  /** The text so far: sent now, or when the interval is over (only the latest is kept). */
  push(text: string): void;
  /** Sends the text still waiting, if any, and stops the timer. */
  finish(): void;
}

export function pacedText(
  send: (text: string) => void,
  intervalMs = PROGRESS_INTERVAL_MS,
  { rewritesAtOnce = true }: { rewritesAtOnce?: boolean } = {},
): PacedText {
  let lastSent = Number.NEGATIVE_INFINITY;
  let lastPushed: string | null = null;
  let waiting: string | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flush = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (waiting === null) return;
    const text = waiting;
    waiting = null;
    lastSent = performance.now();
    send(text);
  };
  return {
    push(text) {
      if (rewritesAtOnce && lastPushed !== null && !text.startsWith(lastPushed)) {
        flush();
        lastSent = Number.NEGATIVE_INFINITY;
      }
      lastPushed = text;
      waiting = text;
      if (timer !== undefined) return;
      const wait = lastSent + intervalMs - performance.now();
      if (wait <= 0) flush();
      else timer = setTimeout(flush, wait);
    },
    finish: flush,
  };
}
