/**
 * "Bring message N into view" from outside the message list (a request note's "Show which"
 * numbers): the list may not have the message in the page (a long list renders only the chunks
 * near the view), so it is asked to render it and scroll to it rather than found by a selector.
 */
type RevealListener = (index: number) => void;

const listeners = new Set<RevealListener>();

/** The shown message list listens while it is mounted; returns the unsubscribe. */
export function onRevealMessage(listener: RevealListener): () => void {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}

/** Scrolls the LLM view's message at `index` (0-based) into view, rendering it first if needed. */
export function revealMessage(index: number): void {
  for (const listener of listeners) listener(index);
}
