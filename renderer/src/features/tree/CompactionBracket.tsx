/**
 * The bracket from the compaction in effect (at the selected leaf) to the region of the path its
 * summary replaced, drawn in flow coordinates next to the replaced nodes.
 */
import { ViewportPortal } from "@xyflow/react";
import type { CanopyState } from "../../store/index.ts";
import { useCanopy } from "../../store/index.ts";
import { NODE_HEIGHT } from "./layout.ts";
import { selectLayout, selectMarks } from "./selectors.ts";

interface Bracket {
  compactionId: string;
  entryCount: number;
  x: number;
  top: number;
  bottom: number;
  toX: number;
  toY: number;
}

let cache: { key: readonly unknown[]; value: Bracket | null } | null = null;

function selectBracket(state: CanopyState): Bracket | null {
  const layout = selectLayout(state);
  const marks = selectMarks(state);
  if (cache && cache.key[0] === layout && cache.key[1] === marks) return cache.value;
  let value: Bracket | null = null;
  const compaction = marks?.view?.compaction;
  const compactionNode = compaction && layout?.byId.get(layout.nodeOfEntry(compaction.id) ?? "");
  if (layout && compaction && compactionNode && compaction.regionIds.length > 0) {
    const regionNodes = new Set<string>();
    for (const id of compaction.regionIds) {
      const layoutId = layout.nodeOfEntry(id);
      if (layoutId !== undefined && layoutId !== compactionNode.id) regionNodes.add(layoutId);
    }
    let minX = Number.POSITIVE_INFINITY;
    let top = Number.POSITIVE_INFINITY;
    let bottom = Number.NEGATIVE_INFINITY;
    for (const layoutId of regionNodes) {
      const node = layout.byId.get(layoutId);
      if (!node) continue;
      minX = Math.min(minX, node.x);
      top = Math.min(top, node.y);
      bottom = Math.max(bottom, node.y + NODE_HEIGHT);
    }
    if (Number.isFinite(minX)) {
      value = {
        compactionId: compaction.id,
        entryCount: compaction.regionIds.length,
        x: minX - 22,
        top,
        bottom,
        toX: compactionNode.x,
        toY: compactionNode.y + NODE_HEIGHT / 2,
      };
    }
  }
  cache = { key: [layout, marks], value };
  return value;
}

export function CompactionBracket() {
  const bracket = useCanopy(selectBracket);
  if (!bracket) return null;
  const { x, top, bottom, toX, toY } = bracket;
  const mid = (top + bottom) / 2;
  const left = Math.min(x, toX) - 60;
  const right = Math.max(x + 10, toX) + 2;
  const upper = Math.min(top, toY) - 2;
  const lower = Math.max(bottom, toY) + 2;
  const path = [
    `M ${x + 10} ${top} L ${x} ${top} L ${x} ${bottom} L ${x + 10} ${bottom}`,
    `M ${x} ${mid} C ${x - 50} ${mid}, ${toX - 50} ${toY}, ${toX} ${toY}`,
  ].join(" ");
  return (
    <ViewportPortal>
      <svg
        className="compaction-bracket"
        data-testid="compaction-bracket"
        data-compaction-id={bracket.compactionId}
        data-entry-count={bracket.entryCount}
        aria-hidden="true"
        style={{ position: "absolute", transform: `translate(${left}px, ${upper}px)`, pointerEvents: "none" }}
        width={right - left}
        height={lower - upper}
        viewBox={`${left} ${upper} ${right - left} ${lower - upper}`}
      >
        <path d={path} />
        <text x={x - 6} y={mid - 6} textAnchor="end">
          summarized ({bracket.entryCount})
        </text>
      </svg>
    </ViewportPortal>
  );
}
