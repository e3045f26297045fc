/**
 * A focused node that leaves the screen (panned away: React Flow renders only what is visible, or
 * replaced by a new layout) would drop the keyboard focus on the page, and the arrows would stop
 * working; so would a box over the canvas whose focused button goes with it (Cancel summary).
 * Before the element goes, a focus inside it moves to the tree, whose keys go on from the
 * selected entry.
 */
import { type RefObject, useLayoutEffect } from "react";

export function useKeepTreeFocus(ref: RefObject<HTMLElement | null>): void {
  useLayoutEffect(() => {
    const element = ref.current;
    return () => {
      // A layout effect's cleanup runs while the unmounting element is still in the document.
      if (element?.contains(document.activeElement)) {
        const tree =
          element.closest<HTMLElement>(".tree-flow") ??
          element.closest(".tree-canvas")?.querySelector<HTMLElement>(".tree-flow");
        tree?.focus({ preventScroll: true });
      }
    };
  }, [ref]);
}
