/**
 * An edit started from a button (Set label, Archive branch, Fork, Undo…) disables the button while
 * it runs, which drops the keyboard focus to the page's body. Once the edit is done, the focus goes
 * back to that button if it is still there and enabled, else to the tree's selected entry (or the
 * tree), so the arrow keys go on.
 */
import { useCanopy } from "../../store/index.ts";
import { selectLayout, selectLeafId } from "../tree/selectors.ts";

function lost(): boolean {
  const active = document.activeElement;
  return active === null || active === document.body;
}

/**
 * The selected entry's node (the view leaf's with none), else the tree itself when the node is not
 * rendered (off screen, or the tree of a session just opened is not drawn yet): its arrow keys
 * start from the selected entry too.
 */
function focusSelectedEntry(tries = 10): void {
  const canvas = document.querySelector<HTMLElement>("[data-testid=tree-canvas]");
  const state = useCanopy.getState();
  const layoutId = selectLayout(state)?.nodeOfEntry(selectLeafId(state) ?? "");
  const selector = layoutId?.startsWith("chain:")
    ? `[data-chain-id="${CSS.escape(layoutId)}"]`
    : `.tree-node[data-entry-id="${CSS.escape(layoutId ?? "")}"]`;
  const node = layoutId ? canvas?.querySelector<HTMLElement>(selector) : null;
  if (node) node.focus({ preventScroll: true });
  else if (tries > 0) requestAnimationFrame(() => focusSelectedEntry(tries - 1));
  else if (lost()) canvas?.querySelector<HTMLElement>("[role=tree]")?.focus({ preventScroll: true });
}

/** Runs `edit`, then gives the focus back as above, unless something else took it meanwhile. */
export async function keepFocus<T>(edit: () => Promise<T>): Promise<T> {
  const opener = document.activeElement;
  try {
    return await edit();
  } finally {
    // A frame later: the buttons are enabled again (or gone) by then.
    if (opener instanceof HTMLElement && opener !== document.body) {
      requestAnimationFrame(() => {
        if (!lost()) return;
        if (opener.isConnected && !(opener as HTMLButtonElement).disabled) opener.focus();
        else focusSelectedEntry();
      });
    }
  }
}
