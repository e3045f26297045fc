/**
 * Drag-to-branch with the pointer (SPEC §2.8, D13): a press on the leaf marker or a node that
 * moves more than a few pixels becomes a branch drag. While dragging, the node under the pointer
 * is the drop target (the store fetches what a move there would summarize) and a ghost follows
 * the pointer; releasing over a node opens the branch dialog, Escape cancels (so does leaving the
 * window, or a move with the button no longer held: a release the page never heard of).
 *
 * Imperative on purpose: pointer positions never go through React or the store, only the
 * target changes do.
 */
import type { PointerEvent as ReactPointerEvent } from "react";
import { useCanopy } from "../../store/index.ts";

const THRESHOLD_PX = 5;

/**
 * The entry drawn under the point: the topmost node, looking through the edges and brackets drawn
 * over it, never through what lies above the graph (the minimap, the zoom controls, a canvas line):
 * a drop there is on no entry, not on one hidden beneath.
 */
function entryAt(x: number, y: number): { entryId: string | null; chain: boolean } {
  for (const element of document.elementsFromPoint(x, y)) {
    const node = element.closest(".tree-node[data-entry-id]");
    if (node) return { entryId: node.getAttribute("data-entry-id"), chain: false };
    // A collapsed run is no one entry: the drop there is refused, and the ghost says why.
    if (element.closest(".tree-node[data-chain-id]")) return { entryId: null, chain: true };
    if (!element.closest(".react-flow__viewport")) break;
  }
  return { entryId: null, chain: false };
}

function swallowNextClick(): void {
  const swallow = (event: MouseEvent) => {
    event.stopPropagation();
    event.preventDefault();
  };
  window.addEventListener("click", swallow, { capture: true, once: true });
  setTimeout(() => window.removeEventListener("click", swallow, { capture: true }), 0);
}

export function beginPointerDrag(sourceId: string, event: ReactPointerEvent<HTMLElement>): void {
  if (event.button !== 0 || !event.isPrimary) return;
  const startX = event.clientX;
  const startY = event.clientY;
  const canvas = event.currentTarget.closest<HTMLElement>(".tree-canvas");
  let active = false;
  let frame = 0;
  let last: { x: number; y: number } = { x: startX, y: startY };

  const ghost = () => canvas?.querySelector<HTMLElement>(".drag-ghost") ?? null;
  const track = () => {
    frame = 0;
    const element = ghost();
    if (element) element.style.transform = `translate(${last.x + 14}px, ${last.y + 14}px)`;
    const over = entryAt(last.x, last.y);
    useCanopy.getState().dragOver(over.entryId, over.chain);
  };
  // The graph moving under a still pointer (a wheel or pinch zoom, a pan, a live append laid out
  // again) changes the entry under it: the target follows what is drawn there.
  const viewport = canvas?.querySelector(".react-flow__viewport") ?? null;
  const moves = new MutationObserver(() => {
    if (active && frame === 0) frame = requestAnimationFrame(track);
  });
  const onMove = (moved: PointerEvent) => {
    if (moved.pointerId !== event.pointerId) return;
    // The button was released where the page could not hear it (outside the window, over a
    // menu): the drag ends there, rather than following the pointer until the next click drops it.
    if ((moved.buttons & 1) === 0) {
      finish(false);
      return;
    }
    last = { x: moved.clientX, y: moved.clientY };
    if (!active) {
      if (Math.hypot(last.x - startX, last.y - startY) < THRESHOLD_PX) return;
      // Refused while a job runs: the canvas says why, and the press stays a click.
      if (!useCanopy.getState().beginBranchDrag(sourceId)) {
        finish(false);
        return;
      }
      active = true;
      canvas?.classList.add("branch-dragging");
      if (viewport)
        moves.observe(viewport, { subtree: true, childList: true, attributes: true, attributeFilter: ["style"] });
    }
    moved.preventDefault();
    if (frame === 0) frame = requestAnimationFrame(track);
  };
  const finish = (drop: boolean) => {
    window.removeEventListener("pointermove", onMove);
    window.removeEventListener("pointerup", onUp);
    window.removeEventListener("pointercancel", onCancel);
    window.removeEventListener("keydown", onKey, true);
    window.removeEventListener("blur", onBlur);
    moves.disconnect();
    if (frame !== 0) cancelAnimationFrame(frame);
    if (!active) return;
    canvas?.classList.remove("branch-dragging");
    swallowNextClick();
    const store = useCanopy.getState();
    if (drop) {
      const over = entryAt(last.x, last.y);
      store.dragOver(over.entryId, over.chain);
    }
    store.endBranchDrag(drop);
  };
  const onUp = (released: PointerEvent) => {
    if (released.pointerId !== event.pointerId) return;
    last = { x: released.clientX, y: released.clientY };
    finish(true);
  };
  const onCancel = () => finish(false);
  // Switching to another window mid-drag (Alt+Tab) cancels: its release is never heard here.
  const onBlur = () => finish(false);
  const onKey = (key: KeyboardEvent) => {
    if (key.key !== "Escape" || !active) return;
    key.stopPropagation();
    key.preventDefault();
    finish(false);
  };
  window.addEventListener("pointermove", onMove);
  window.addEventListener("pointerup", onUp);
  window.addEventListener("pointercancel", onCancel);
  window.addEventListener("keydown", onKey, true);
  window.addEventListener("blur", onBlur);
}
