/**
 * Gives the keyboard focus back when a dialog, a plan or an in-place editor closes: to the control
 * that had it when the box opened (Export…, ×, Compact…), else to a fallback. Only when the focus
 * went with the box (it is left on the page's body): a click elsewhere keeps its focus.
 */
import { useEffect, useRef } from "react";

function focusable(element: Element | null): element is HTMLElement {
  return (
    element instanceof HTMLElement &&
    element !== document.body &&
    element.isConnected &&
    !(element as HTMLButtonElement).disabled
  );
}

/** `open`: whether the box is shown; `fallback`: where the focus goes when its opener is gone. */
export function useReturnFocus(open: boolean, fallback?: () => HTMLElement | null): void {
  const opener = useRef<Element | null>(null);
  const wasOpen = useRef(false);
  // Read while rendering the opening: a control that takes the focus (autoFocus) has not yet.
  if (open && !wasOpen.current) opener.current = document.activeElement;
  wasOpen.current = open;
  const fallbackRef = useRef(fallback);
  fallbackRef.current = fallback;

  useEffect(() => {
    if (!open) return;
    return () => {
      const active = document.activeElement;
      if (active !== null && active !== document.body) return;
      const target = focusable(opener.current) ? opener.current : (fallbackRef.current?.() ?? null);
      opener.current = null;
      if (focusable(target)) target.focus();
    };
  }, [open]);
}
