/**
 * Brings an element of the LLM view into view by scrolling the view's own pane only.
 * scrollIntoView scrolls every scrolling ancestor, the window too: with the LLM view below the
 * tree (a narrow window), selecting an entry on the tree scrolled the window to the LLM view.
 */

/** `block` as scrollIntoView's: "nearest" scrolls only when the element is not whole in view. */
export function revealInPane(element: Element, pane: HTMLElement, block: "nearest" | "center"): void {
  const box = element.getBoundingClientRect();
  const view = pane.getBoundingClientRect();
  const top = view.top + pane.clientTop;
  const bottom = top + pane.clientHeight;
  let delta = 0;
  if (block === "center") delta = box.top + box.height / 2 - (top + bottom) / 2;
  else if (box.top < top) delta = box.top - top;
  // Taller than the pane: its top, as scrollIntoView does.
  else if (box.bottom > bottom) delta = Math.min(box.bottom - bottom, box.top - top);
  if (delta !== 0) pane.scrollTop += delta;
}
