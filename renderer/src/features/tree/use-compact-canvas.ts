/**
 * Whether the canvas is small (the desktop app's 1000×700 window leaves it ~405×270 px): there
 * the minimap (150×110) and the vertical zoom controls would cover a large share of the tree, so
 * the canvas leaves the minimap out and lays the controls out in one row. Follows resizes.
 */
import { useLayoutEffect, useState } from "react";

/** Below either size the canvas is compact (at 1280×800 it is ~470×426: not compact). */
export const COMPACT_CANVAS = { width: 440, height: 320 };

export function useCompactCanvas(element: HTMLElement | null): boolean {
  const [compact, setCompact] = useState(false);
  useLayoutEffect(() => {
    if (!element) return;
    const check = () =>
      setCompact(element.clientWidth < COMPACT_CANVAS.width || element.clientHeight < COMPACT_CANVAS.height);
    check();
    const observer = new ResizeObserver(check);
    observer.observe(element);
    return () => observer.disconnect();
  }, [element]);
  return compact;
}
