/**
 * Which chunks of a long list are near the visible part of its scrolling panel. The list renders a
 * chunk's rows only while it is within a screen or so of the view, and a placeholder of its
 * last measured height otherwise, so 2,000 sessions (or 20,000 messages) cost what the few dozen
 * around the view do. Used by the library's session list and the LLM view's message list.
 */
import { startTransition, useCallback, useEffect, useRef, useState } from "react";
import { flushSync } from "react-dom";

export interface VisibleChunkOptions {
  /** A row's height before any was measured. */
  rowPx: number;
  /** How far past the visible part of the panel chunks are rendered already. */
  marginPx: number;
  /** Before the observer has answered, chunks starting this far down are rendered at once. */
  firstScreenPx: number;
  /** A chunk that must stay rendered besides the one holding the focus (an open confirmation). */
  keep?: (chunk: Element) => boolean;
}

export function scrollParent(element: HTMLElement): HTMLElement | null {
  for (let parent = element.parentElement; parent; parent = parent.parentElement) {
    const overflow = getComputedStyle(parent).overflowY;
    if (overflow === "auto" || overflow === "scroll") return parent;
  }
  return null;
}

export interface VisibleChunks {
  /** The list's own element (its scrolling ancestor is the observer's root). */
  rootRef: (element: HTMLElement | null) => void;
  /** The ref of a chunk's element (rendered rows or placeholder), the same function for a key. */
  refFor: (key: string) => (element: HTMLElement | null) => void;
  /** Whether the chunk's rows are rendered; `estimatedTop` counts until the observer answers. */
  shown: (key: string, estimatedTop: number) => boolean;
  /** The placeholder height of a chunk of `rows` rows (measured when it was last rendered). */
  height: (key: string, rows: number) => number;
  /**
   * Renders a placeholder's rows at once, before the observer would: for the arrow keys, which may
   * come faster than the rows coming near are rendered.
   */
  renderNow: (placeholder: Element) => void;
  rowEstimate: number;
}

/** `options` are read once (a module constant). */
export function useVisibleChunks(options: VisibleChunkOptions): VisibleChunks {
  const { rowPx: firstRowPx, marginPx, firstScreenPx, keep: keepAlso } = options;
  const [near, setNear] = useState<ReadonlyMap<string, boolean>>(new Map());
  const heights = useRef(new Map<string, { height: number; rows: number }>());
  // The row estimate is the mean over every chunk measured, not the last one: a chunk of long
  // rows measured last would resize every placeholder at once (a jump of the whole list).
  const measured = useRef({ height: 0, rows: 0 });
  const rowPx = useRef(firstRowPx);
  const elements = useRef(new Map<string, HTMLElement>());
  const keys = useRef(new WeakMap<Element, string>());
  const observer = useRef<IntersectionObserver | null>(null);
  const [root, setRoot] = useState<HTMLElement | null>(null);

  useEffect(() => {
    if (!root) return;
    const seen = new IntersectionObserver(
      (entries) => {
        const changes: [string, boolean][] = [];
        for (const entry of entries) {
          const key = keys.current.get(entry.target);
          if (key === undefined) continue;
          const rows = Number((entry.target as HTMLElement).dataset.rows ?? 0);
          if ((entry.target as HTMLElement).dataset.placeholder === undefined && rows > 0) {
            const height = entry.boundingClientRect.height;
            const before = heights.current.get(key);
            heights.current.set(key, { height, rows });
            measured.current.height += height - (before?.height ?? 0);
            measured.current.rows += rows - (before?.rows ?? 0);
            if (measured.current.rows > 0) rowPx.current = measured.current.height / measured.current.rows;
          }
          // The chunk holding the focused row (or what `keep` names) stays rendered.
          const keep = entry.target.contains(document.activeElement) || (keepAlso?.(entry.target) ?? false);
          changes.push([key, entry.isIntersecting || keep]);
        }
        if (changes.length === 0) return;
        // A transition: rows mounted for a chunk coming near yield to the frames of the scroll.
        startTransition(() => setNear((previous) => {
          if (changes.every(([key, value]) => previous.get(key) === value)) return previous;
          const next = new Map(previous);
          for (const [key, value] of changes) next.set(key, value);
          return next;
        }));
      },
      { root: scrollParent(root), rootMargin: `${marginPx}px 0px` },
    );
    observer.current = seen;
    for (const element of elements.current.values()) seen.observe(element);
    return () => {
      seen.disconnect();
      observer.current = null;
    };
  }, [root, marginPx, keepAlso]);

  const observe = useCallback((key: string, element: HTMLElement | null) => {
    const previous = elements.current.get(key);
    if (previous === element) return;
    if (previous) observer.current?.unobserve(previous);
    if (element) {
      elements.current.set(key, element);
      keys.current.set(element, key);
      observer.current?.observe(element);
    } else elements.current.delete(key);
  }, []);

  const shown = useCallback(
    (key: string, estimatedTop: number) => near.get(key) ?? estimatedTop < firstScreenPx,
    [near, firstScreenPx],
  );
  const refs = useRef(new Map<string, (element: HTMLElement | null) => void>());
  const refFor = useCallback(
    (key: string) => {
      let ref = refs.current.get(key);
      if (!ref) {
        ref = (element: HTMLElement | null) => observe(key, element);
        refs.current.set(key, ref);
      }
      return ref;
    },
    [observe],
  );
  const height = useCallback(
    (key: string, rows: number) => heights.current.get(key)?.height ?? rows * rowPx.current,
    [],
  );
  const renderNow = useCallback((placeholder: Element) => {
    const key = keys.current.get(placeholder);
    if (key === undefined) return;
    flushSync(() => setNear((previous) => (previous.get(key) ? previous : new Map(previous).set(key, true))));
  }, []);
  return { rootRef: setRoot, refFor, shown, height, renderNow, rowEstimate: rowPx.current };
}
