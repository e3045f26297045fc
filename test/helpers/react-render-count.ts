/**
 * A page init script that counts renders of the canvas's node components through React's
 * devtools hook, which the production build also calls on every commit. A node component is the
 * function component whose first child is the `.tree-node` div (data-entry-id / data-chain-id).
 * It rendered in a commit when it is mounted, or when its fiber is a new work-in-progress copy
 * that did work (PerformedWork); a fiber object that was in the previous commit's tree unchanged
 * was not visited at all. Counts are in `window.__treeRenders`.
 */
export interface TreeRenders {
  entry: number;
  chain: number;
}

export const COUNT_TREE_RENDERS = `(() => {
  const PERFORMED_WORK = 1;
  window.__treeRenders = { entry: 0, chain: 0 };
  let last = new Set();
  const kindOf = (fiber) => {
    const child = fiber.child;
    // 0: a function component (inside memo with a comparison), 15: a plain memo function component.
    if ((fiber.tag !== 0 && fiber.tag !== 15) || !child || child.type !== "div" || !child.memoizedProps) return null;
    const props = child.memoizedProps;
    if (typeof props.className !== "string" || !props.className.startsWith("tree-node")) return null;
    if (props["data-chain-id"] !== undefined) return "chain";
    return props["data-entry-id"] !== undefined ? "entry" : null;
  };
  window.__REACT_DEVTOOLS_GLOBAL_HOOK__ = {
    supportsFiber: true,
    isDisabled: false,
    renderers: new Map(),
    inject() { return 1; },
    checkDCE() {},
    onScheduleFiberRoot() {},
    onCommitFiberUnmount() {},
    onPostCommitFiberRoot() {},
    onCommitFiberRoot(_id, root) {
      const now = new Set();
      const stack = [root.current];
      while (stack.length > 0) {
        const fiber = stack.pop();
        const kind = kindOf(fiber);
        if (kind) {
          now.add(fiber);
          if (!last.has(fiber) && (fiber.alternate === null || (fiber.flags & PERFORMED_WORK) !== 0))
            window.__treeRenders[kind]++;
        }
        if (fiber.sibling) stack.push(fiber.sibling);
        if (fiber.child) stack.push(fiber.child);
      }
      last = now;
    },
  };
})()`;
