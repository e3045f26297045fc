/**
 * Viewport moves for the canvas: centre on a layout node, pan to a node only when it is off
 * screen, fit the tree clear of the minimap and zoom controls, and focus a node's element once
 * React Flow has rendered it.
 */
import { useReactFlow, useStoreApi } from "@xyflow/react";
import { useMemo } from "react";
import { useCanopy } from "../../store/index.ts";
import { NODE_HEIGHT, NODE_WIDTH } from "./layout.ts";
import { selectLayout } from "./selectors.ts";

/** Below this zoom node text is unreadable; selecting a node zooms in to it. */
const READABLE_ZOOM = 0.4;

export interface CanvasViewport {
  /** Centres the node (default: keep the zoom, but not below 0.6). */
  centerOn(layoutId: string, options?: { zoom?: number; duration?: number }): void;
  /** Pans to the node when it is not fully on screen or too small to read. */
  ensureVisible(layoutId: string): void;
  /**
   * Whether a node placed at (x, y) in flow coordinates is fully on screen now, at a readable
   * zoom, and not under the minimap or the zoom controls.
   */
  onScreen(node: { x: number; y: number }): boolean;
  /** Moves the view with content that moved by (dx, dy) in flow coordinates. */
  shiftBy(dx: number, dy: number): void;
  /** The first view of a session: the whole tree when it is small enough, else the view leaf. */
  initialView(focusLayoutId: string | null): void;
  /** Fits the whole tree in the part of the canvas the minimap and the zoom controls leave free. */
  fitAll(): Promise<boolean>;
}

/** How long a focus move waits for its node to be drawn (a 250 ms pan, a new layout, a slow frame). */
const FOCUS_WAIT_MS = 1500;
/** The latest focus move: an older one still waiting gives up (the arrows moved on meanwhile). */
let focusMoves = 0;

/**
 * Focuses a layout node's element once React Flow draws it. Until then, and when it never comes
 * (off screen, filtered out, in a chain), a focus left on <body> (a closed dialog) goes to the tree
 * itself, whose keys go on from the selected entry: the arrows never stop working. A focus the user
 * put elsewhere meanwhile (another control, a text field) is left alone.
 */
export function focusTreeNode(container: HTMLElement | null, layoutId: string): void {
  const selector = layoutId.startsWith("chain:")
    ? `[data-chain-id="${CSS.escape(layoutId)}"]`
    : `.tree-node[data-entry-id="${CSS.escape(layoutId)}"]`;
  const move = ++focusMoves;
  const from = document.activeElement;
  const started = performance.now();
  const tree = () => container?.querySelector<HTMLElement>(".tree-flow") ?? null;
  const attempt = () => {
    if (move !== focusMoves || !container?.isConnected) return;
    const active = document.activeElement;
    const free = active === null || active === document.body || active === from || active === tree();
    if (!free) return;
    const element = container.querySelector<HTMLElement>(selector);
    if (element) {
      element.focus({ preventScroll: true });
      return;
    }
    if (active === null || active === document.body) tree()?.focus({ preventScroll: true });
    if (performance.now() - started < FOCUS_WAIT_MS) requestAnimationFrame(attempt);
  };
  requestAnimationFrame(attempt);
}

/** Room kept between the first view's leaf and the minimap. */
const MINIMAP_GAP = 8;

type FlowStore = ReturnType<typeof useStoreApi>;

/**
 * The pan centerOn started, while it runs: where the view goes and when it gets there. Mid-pan the
 * view is between where it was and where it goes, so "on screen" is judged where it goes: a node
 * on screen halfway through (keys pressed during a pan) would else be left off screen at its end.
 */
let panning: { transform: [number, number, number]; until: number } | null = null;

/** Room around a fitted tree, as a share of the canvas (React Flow's padding 0.08 on each side). */
const FIT_PADDING = 0.08;

/** Where a corner widget (minimap, zoom controls) lies on the canvas, in canvas pixels. */
interface CanvasRect {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

/** The minimap and the zoom controls, drawn over the canvas's bottom corners (absent ones left out). */
function cornerWidgets(flowStore: FlowStore): { minimap: CanvasRect | null; controls: CanvasRect | null } {
  const { domNode } = flowStore.getState();
  const frame = domNode?.closest(".tree-frame");
  if (!domNode || !frame) return { minimap: null, controls: null };
  const origin = domNode.getBoundingClientRect();
  const rectOf = (selector: string): CanvasRect | null => {
    const box = frame.querySelector(selector)?.getBoundingClientRect();
    if (!box || box.width === 0 || box.height === 0) return null;
    const left = box.left - origin.left;
    const top = box.top - origin.top;
    return { left, top, right: left + box.width, bottom: top + box.height };
  };
  return { minimap: rectOf(".react-flow__minimap"), controls: rectOf(".react-flow__controls") };
}

type Paddings = { top: number; right: number; bottom: number; left: number };

/**
 * The fit's padding, in pixels, that keeps every node clear of the corner widgets: either strips
 * at the sides (the controls' width on the left, the minimap's on the right) or one strip along
 * the bottom, whichever leaves the bigger zoom (a tall tree loses nothing to side strips, a wide
 * one nothing to a bottom strip). Null when neither leaves room to draw the tree.
 */
function clearPaddings(
  flowStore: FlowStore,
  bounds: { minX: number; minY: number; maxX: number; maxY: number },
): Paddings | null {
  const { width, height } = flowStore.getState();
  const { minimap, controls } = cornerWidgets(flowStore);
  // As React Flow turns a padding of 0.08 into pixels.
  const baseX = Math.floor((width - width / (1 + FIT_PADDING)) * 0.5);
  const baseY = Math.floor((height - height / (1 + FIT_PADDING)) * 0.5);
  const base = { top: baseY, right: baseX, bottom: baseY, left: baseX };
  const sides: Paddings = {
    ...base,
    left: Math.max(baseX, controls ? controls.right + MINIMAP_GAP : 0),
    right: Math.max(baseX, minimap ? width - minimap.left + MINIMAP_GAP : 0),
  };
  const highest = Math.min(minimap?.top ?? height, controls?.top ?? height);
  const below: Paddings = { ...base, bottom: Math.max(baseY, height - highest + MINIMAP_GAP) };
  const boundsWidth = Math.max(1, bounds.maxX - bounds.minX);
  const boundsHeight = Math.max(1, bounds.maxY - bounds.minY);
  const zoomWith = (p: Paddings) =>
    Math.min(1, (width - p.left - p.right) / boundsWidth, (height - p.top - p.bottom) / boundsHeight);
  const best = zoomWith(sides) >= zoomWith(below) ? sides : below;
  return zoomWith(best) > 0 ? best : null;
}

export function useCanvasViewport(): CanvasViewport {
  const flow = useReactFlow();
  const flowStore = useStoreApi();
  return useMemo(() => {
    const nodeOf = (layoutId: string) => {
      const layout = selectLayout(useCanopy.getState());
      return layout?.byId.get(layoutId) ?? null;
    };
    const centerOn: CanvasViewport["centerOn"] = (layoutId, options) => {
      const node = nodeOf(layoutId);
      if (!node) return;
      const zoom = options?.zoom ?? Math.max(flow.getZoom(), 0.6);
      const duration = options?.duration ?? 250;
      const x = node.x + NODE_WIDTH / 2;
      const y = node.y + NODE_HEIGHT / 2;
      const { width, height } = flowStore.getState();
      // setCenter puts (x, y) at the canvas's centre at that zoom.
      panning = { transform: [width / 2 - x * zoom, height / 2 - y * zoom, zoom], until: performance.now() + duration };
      void flow.setCenter(x, y, { zoom, duration });
    };
    const onScreen: CanvasViewport["onScreen"] = (node) => {
      const { width, height } = flowStore.getState();
      if (panning !== null && performance.now() >= panning.until) panning = null;
      const [tx, ty, zoom] = panning?.transform ?? flowStore.getState().transform;
      const left = node.x * zoom + tx;
      const top = node.y * zoom + ty;
      const right = left + NODE_WIDTH * zoom;
      const bottom = top + NODE_HEIGHT * zoom;
      const inside = left >= 0 && top >= 0 && right <= width && bottom <= height;
      if (!inside || zoom < READABLE_ZOOM) return false;
      // A node under the minimap or the zoom controls is hidden, though on the canvas.
      const { minimap, controls } = cornerWidgets(flowStore);
      const under = (widget: CanvasRect | null) =>
        widget !== null && left < widget.right && widget.left < right && top < widget.bottom && widget.top < bottom;
      return !under(minimap) && !under(controls);
    };
    // The first view's focus (the view leaf with its marker at the node's top right, or a deep
    // link's entry) drawn under the minimap: the view moves left just enough when the node stays
    // whole on the canvas, else up.
    const clearOfMinimap = (layoutId: string) => {
      const node = nodeOf(layoutId);
      const corner = cornerWidgets(flowStore).minimap;
      if (!node || !corner) return;
      const [tx, ty, zoom] = flowStore.getState().transform;
      const left = node.x * zoom + tx;
      const top = node.y * zoom + ty;
      const right = left + NODE_WIDTH * zoom;
      const bottom = top + NODE_HEIGHT * zoom;
      // Within a node's height above it counts too: the canvas often gets shorter right after
      // the first view (the lines above it fill in), which moves the leaf down onto the minimap.
      if (right <= corner.left - MINIMAP_GAP || bottom <= corner.top - NODE_HEIGHT * zoom) return;
      const dx = right - corner.left + MINIMAP_GAP;
      const dy = bottom - (corner.top - NODE_HEIGHT * zoom);
      panning = null;
      if (left - dx >= MINIMAP_GAP) void flow.setViewport({ x: tx - dx, y: ty, zoom });
      else if (top - dy >= MINIMAP_GAP) void flow.setViewport({ x: tx, y: ty - dy, zoom });
    };
    const fitAll: CanvasViewport["fitAll"] = () => {
      panning = null;
      const layout = selectLayout(useCanopy.getState());
      const p = layout ? clearPaddings(flowStore, layout.bounds) : null;
      const px = (value: number) => `${value}px` as const;
      const padding = p
        ? { top: px(p.top), right: px(p.right), bottom: px(p.bottom), left: px(p.left) }
        : FIT_PADDING;
      // includeHiddenNodes: culled nodes are never measured; their declared size counts.
      return flow.fitView({ padding, maxZoom: 1, minZoom: 0.02, includeHiddenNodes: true });
    };
    return {
      centerOn,
      onScreen,
      fitAll,
      ensureVisible(layoutId) {
        const node = nodeOf(layoutId);
        if (!node || onScreen(node)) return;
        centerOn(layoutId, { zoom: Math.max(flowStore.getState().transform[2], 0.75) });
      },
      shiftBy(dx, dy) {
        if (dx === 0 && dy === 0) return;
        // Set at once, it ends a pan under way where it is now.
        panning = null;
        const { x, y, zoom } = flow.getViewport();
        void flow.setViewport({ x: x - dx * zoom, y: y - dy * zoom, zoom });
      },
      initialView(focusLayoutId) {
        panning = null;
        const layout = selectLayout(useCanopy.getState());
        const { width, height } = flowStore.getState();
        if (!layout || width === 0 || height === 0) return;
        const { minX, minY, maxX, maxY } = layout.bounds;
        const fitZoom = Math.min(width / (maxX - minX + 80), height / (maxY - minY + 80));
        const clear = () => {
          if (focusLayoutId) clearOfMinimap(focusLayoutId);
        };
        if (fitZoom >= 0.55 || !focusLayoutId) {
          void fitAll().then(clear);
        } else {
          // The leaf sits low in the view, so that the history leading to it fills the screen.
          const node = nodeOf(focusLayoutId);
          const zoom = 0.85;
          if (node) {
            const below = Math.max(0, height * 0.25 - NODE_HEIGHT * zoom) / zoom;
            void flow
              .setCenter(node.x + NODE_WIDTH / 2, node.y + NODE_HEIGHT / 2 - below, { zoom, duration: 0 })
              .then(clear);
          }
        }
      },
    };
  }, [flow, flowStore]);
}
