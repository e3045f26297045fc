/**
 * Edit buttons keep the keyboard focus. An edit disables the toolbar's buttons while it runs,
 * which drops the focus to the page's body; the button pressed (by its stable data-focus-key, as
 * React may re-create the element) takes it back once the edit's refreshed state has landed and it
 * is enabled again (Save as new branch after a failed save: it shares Edit's key), else a
 * neighbour (Undo ↔ Redo), else the tree's selected entry. Never when the
 * user clicked, typed or moved the focus meanwhile.
 */
import { type RefObject, useCallback, useEffect, useRef, useState } from "react";
import type { EditHistoryDto, EditResultDto } from "../../../../core/api/dto.ts";
import { type CanopyState, useCanopy } from "../../store/index.ts";
import { selectRunning } from "../../store/jobs-slice.ts";
import { selectLayout, selectLeafId } from "../tree/selectors.ts";

/** Where the focus goes when the control pressed is gone or disabled after its edit. */
const NEIGHBOUR: Readonly<Record<string, string>> = { undo: "redo", redo: "undo" };
/** An edit whose refreshed state never shows (another window edited meanwhile): wait no longer. */
const LANDING_TIMEOUT_MS = 8_000;

interface FocusRequest {
  id: number;
  key: string;
  /** The edit has answered (null: it failed or did nothing). */
  done: boolean;
  result: EditResultDto | null;
  /** Waited LANDING_TIMEOUT_MS after the answer for the state to match it. */
  expired: boolean;
}

const sameHistory = (a: EditHistoryDto, b: EditHistoryDto) => a.undo === b.undo && a.redo === b.redo;

/**
 * The edit's outcome is on screen: nothing runs, the open session's tree is loaded, and when it is
 * the session edited, it has the undo/redo state the edit answered with (a refresh asked before the
 * edit may land after its own one: Undo/Redo are enabled from that state).
 */
function landed(state: CanopyState, result: EditResultDto | null): boolean {
  if (state.editBusy || selectRunning(state) !== null || state.treeLoad !== null) return false;
  if (state.selectedSessionId === null) return true;
  const tree = state.tree;
  if (tree === null || tree.sessionId !== state.selectedSessionId) return false;
  return result === null || tree.sessionId !== result.sessionId || sameHistory(tree.history, result.history);
}

const focusKeyOf = (element: Element | null) => element?.getAttribute("data-focus-key") ?? null;

/** Ctrl+Z / Ctrl+Shift+Z (Cmd on macOS): Canopy's undo and redo. */
export function isUndoRedoKey(event: KeyboardEvent): boolean {
  return (event.ctrlKey || event.metaKey) && !event.altKey && event.key.toLowerCase() === "z";
}

/** Keys that do not move the user elsewhere: modifiers, and undo/redo (which make a request of their own). */
const keepsRequest = (event: KeyboardEvent) =>
  ["Control", "Shift", "Alt", "Meta"].includes(event.key) || isUndoRedoKey(event);

/** Whether the focus went nowhere (the body), or is still on the disabled control pressed. */
function lostFrom(key: string): boolean {
  const active = document.activeElement;
  return active === null || active === document.body || focusKeyOf(active) === key;
}

/** The first enabled control with that key (Edit as new branch and Save as new branch share one). */
function enabledControl(toolbar: HTMLElement | null, key: string): HTMLElement | null {
  const controls = toolbar?.querySelectorAll<HTMLElement>(`[data-focus-key="${CSS.escape(key)}"]`) ?? [];
  for (const control of controls) if (!(control as HTMLButtonElement).disabled) return control;
  return null;
}

/**
 * The selected entry's node (the view leaf's with none), waiting a few frames for the canvas to
 * draw it, else the tree itself, whose arrow keys start from the selected entry too. Stops if the
 * focus went somewhere meanwhile.
 */
function focusSelectedEntry(key: string, tries = 30): void {
  if (!lostFrom(key)) return;
  const canvas = document.querySelector<HTMLElement>("[data-testid=tree-canvas]");
  const state = useCanopy.getState();
  const layoutId = selectLayout(state)?.nodeOfEntry(selectLeafId(state) ?? "");
  const selector = layoutId?.startsWith("chain:")
    ? `[data-chain-id="${CSS.escape(layoutId)}"]`
    : `.tree-node[data-entry-id="${CSS.escape(layoutId ?? "")}"]`;
  const node = layoutId ? canvas?.querySelector<HTMLElement>(selector) : null;
  if (node) node.focus({ preventScroll: true });
  else if (tries > 0) requestAnimationFrame(() => focusSelectedEntry(key, tries - 1));
  else canvas?.querySelector<HTMLElement>("[role=tree]")?.focus({ preventScroll: true });
}

/**
 * `toolbar`: the element holding the controls (each with data-focus-key). Returns `track(edit)`,
 * which runs an edit and, when the focus was on one of those controls, gives it back as above.
 */
export function useEditFocus(
  toolbar: RefObject<HTMLElement | null>,
): <T extends EditResultDto | null>(edit: () => Promise<T>) => Promise<T> {
  const [request, setRequest] = useState<FocusRequest | null>(null);
  const lastId = useRef(0);
  const latest = useRef(request);
  latest.current = request;
  const ready = useCanopy(
    (state) => request?.done === true && (request.expired || landed(state, request.result)),
  );

  const track = useCallback(<T extends EditResultDto | null>(edit: () => Promise<T>): Promise<T> => {
    const active = document.activeElement;
    const current = latest.current;
    // Ctrl+Z pressed again while the focus waits to go back: it is still the same button's.
    const key =
      focusKeyOf(active) ?? ((active === null || active === document.body) && current ? current.key : null);
    const promise = edit();
    if (key === null) return promise;
    // Ctrl+Z pressed again while the last one runs waits its turn (edits-slice pressUndoRedo): the
    // focus goes back once the last press has run, so this request replaces the one before.
    const id = ++lastId.current;
    setRequest({ id, key, done: false, result: null, expired: false });
    const answered = (result: EditResultDto | null) =>
      setRequest((now) => (now !== null && now.id === id ? { ...now, done: true, result } : now));
    promise.then(answered, () => answered(null));
    return promise;
  }, []);

  // The user acts meanwhile (a click, a key but Ctrl/Shift or Ctrl+Z, the focus moved by Tab or by
  // the app): the request is dropped. Listening starts after the click or key that made it.
  const pending = request !== null;
  useEffect(() => {
    if (!pending) return;
    const drop = () => setRequest(null);
    const onKey = (event: KeyboardEvent) => {
      if (!keepsRequest(event)) drop();
    };
    document.addEventListener("pointerdown", drop, true);
    document.addEventListener("focusin", drop, true);
    document.addEventListener("keydown", onKey, true);
    return () => {
      document.removeEventListener("pointerdown", drop, true);
      document.removeEventListener("focusin", drop, true);
      document.removeEventListener("keydown", onKey, true);
    };
  }, [pending]);

  const done = request?.done === true;
  const requestId = request?.id;
  useEffect(() => {
    if (!done) return;
    const timer = setTimeout(
      () => setRequest((now) => (now !== null && now.id === requestId ? { ...now, expired: true } : now)),
      LANDING_TIMEOUT_MS,
    );
    return () => clearTimeout(timer);
  }, [done, requestId]);

  // After every render (the buttons' enabled state follows the store): once the state has landed,
  // the control pressed if enabled, else its neighbour, else the selected entry.
  useEffect(() => {
    if (!request || !ready) return;
    setRequest(null);
    if (!lostFrom(request.key)) return;
    const neighbour = NEIGHBOUR[request.key];
    const control =
      enabledControl(toolbar.current, request.key) ??
      (neighbour === undefined ? null : enabledControl(toolbar.current, neighbour));
    if (control) control.focus();
    else focusSelectedEntry(request.key);
  });

  return track;
}
