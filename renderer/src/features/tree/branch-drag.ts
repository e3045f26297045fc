/**
 * Drag-to-branch with the pointer (SPEC §2.8, D13): a press on the leaf marker or a node that
 * moves more than a few pixels becomes a branch drag. While dragging, the node under the pointer
 * is the drop target (the store fetches what a move there would summarize) and a ghost follows
 * the pointer; releasing over a node opens the branch dialog, Escape cancels.
 *
 * Imperative on purpose: pointer positions never go through React or the store, only the
 * target changes do.
 */
import type { PointerEvent as ReactPointerEvent } from "react";
import { useCanopy } from "../../store/index.ts";

const THRESHOLD_PX = 5;

function entryAt(x: number, y: number): string | null {
  for (const element of document.elementsFromPoint(x, y)) {
    const node = element.closest(".tree-node[data-entry-id]");
    if (node) return node.getAttribute("data-entry-id");
  }
  return null;
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
    useCanopy.getState().dragOver(entryAt(last.x, last.y));
  };
  const onMove = (moved: PointerEvent) => {
    if (moved.pointerId !== event.pointerId) return;
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
    }
    moved.preventDefault();
    if (frame === 0) frame = requestAnimationFrame(track);
  };
  const finish = (drop: boolean) => {
    window.removeEventListener("pointermove", onMove);
    window.removeEventListener("pointerup", onUp);
    window.removeEventListener("pointercancel", onCancel);
    window.removeEventListener("keydown", onKey, true);
    if (frame !== 0) cancelAnimationFrame(frame);
    if (!active) return;
    canvas?.classList.remove("branch-dragging");
    swallowNextClick();
    const store = useCanopy.getState();
    if (drop) store.dragOver(entryAt(last.x, last.y));
    store.endBranchDrag(drop);
  };
  const onUp = (released: PointerEvent) => {
    if (released.pointerId !== event.pointerId) return;
    last = { x: released.clientX, y: released.clientY };
    finish(true);
  };
  const onCancel = () => finish(false);
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
}
