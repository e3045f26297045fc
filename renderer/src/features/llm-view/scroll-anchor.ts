/**
 * Keeps what a long message list shows in place while placeholders above it are swapped for
 * their messages (or the other way round) and change height. The browser's own scroll anchoring
 * is off for that list (it pulled the view far away as placeholders were replaced); instead the
 * first list item (message, or chunk placeholder) starting in the visible part — or the message
 * just scrolled to — is remembered with its offset, and after a change the panel is scrolled by
 * how far it moved.
 */

interface Anchor {
  element: Element;
  offset: number;
  scrollTop: number;
}

/** The first of `items` (in page order) whose bottom is below `top` (binary search). */
function firstBelow(items: HTMLCollection, top: number): Element | null {
  let low = 0;
  let high = items.length - 1;
  let found: Element | null = null;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const item = items[middle] as Element;
    if (item.getBoundingClientRect().bottom > top) {
      found = item;
      high = middle - 1;
    } else low = middle + 1;
  }
  return found;
}

/** The first item (message, or chunk as a whole) starting in the visible part [top, bottom): what
 * is below it may move with it; a chunk above it may change height. Without one (the visible
 * part lies inside one chunk), that chunk. */
function anchorIn(list: HTMLElement, top: number, bottom: number): Element | null {
  const chunk = firstBelow(list.children, top);
  if (!chunk) return null;
  const starts = (item: Element | null | undefined) => {
    const at = item?.getBoundingClientRect().top;
    return at !== undefined && at >= top && at < bottom;
  };
  const inside = (item: Element | null | undefined) => {
    const rows = item?.firstElementChild?.children;
    const first = rows ? firstBelow(rows, top) : null;
    return first && starts(first) ? first : null;
  };
  if (starts(chunk)) return inside(chunk) ?? chunk;
  const within = inside(chunk);
  if (within) return within;
  const next = chunk.nextElementSibling;
  if (starts(next)) return inside(next) ?? next;
  return chunk;
}

export interface ScrollAnchor {
  /** Remembers `element` (a message just scrolled to), else the item at the top of the visible part. */
  record(element?: Element): void;
  /** The panel scrolled: the user's scroll (not an adjustment of ours) re-records. */
  scrolled(): void;
  /** Scrolls the panel so that the remembered item is where it was; a scroll since re-records. */
  restore(): void;
}

/** `list`: the windowed <ol> (its children are chunks); `pane`: its scrolling ancestor. */
export function scrollAnchor(list: HTMLElement, pane: HTMLElement): ScrollAnchor {
  let anchor: Anchor | null = null;
  const record = (chosen?: Element) => {
    const box = pane.getBoundingClientRect();
    const element = chosen ?? anchorIn(list, box.top, box.bottom);
    anchor = element
      ? { element, offset: element.getBoundingClientRect().top - box.top, scrollTop: pane.scrollTop }
      : null;
  };
  const restore = () => {
    if (!anchor?.element.isConnected || pane.scrollTop !== anchor.scrollTop) {
      record();
      return;
    }
    const moved =
      anchor.element.getBoundingClientRect().top - pane.getBoundingClientRect().top - anchor.offset;
    if (Math.abs(moved) >= 1) pane.scrollTop += moved;
    anchor.scrollTop = pane.scrollTop;
  };
  const scrolled = () => {
    // The panel's scroll event after an adjustment of ours (or a scroll to a chosen item).
    if (anchor?.element.isConnected && pane.scrollTop === anchor.scrollTop) return;
    record();
  };
  return { record, restore, scrolled };
}
