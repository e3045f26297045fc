/**
 * Opening a session's tree in steps: what the first render of a big tree would compute in one
 * task (lookups, the structure walk, the layout, depths, the LLM view's links; all cached per
 * node list) is made ahead, one piece per task, so the page keeps answering in between and the
 * render that shows the tree finds them made.
 */
import type { SessionTreeDto } from "../../../../core/api/dto.ts";
import type { CanopyState } from "../../store/index.ts";
import { entryLinks } from "../llm-view/entry-links.ts";
import { entryDepths } from "./entry-depths.ts";
import { layoutFacts } from "./layout-facts.ts";
import { treeStructure } from "./layout-structure.ts";
import { layOutAhead } from "./selectors.ts";
import { treeLookup } from "./tree-lookup.ts";

/**
 * From this many nodes a tree is opened in steps; a smaller one is laid out by the render that
 * shows it (all of it takes a few milliseconds there, and steps would only add turns).
 */
export const OPEN_IN_STEPS_FROM = 2000;

/**
 * The pieces, in order, each to run in a task of its own (none for a small tree). `after`: the
 * state the tree will be shown in.
 */
export function openSteps(tree: SessionTreeDto, after: () => CanopyState): (() => void)[] {
  const nodes = tree.nodes;
  if (nodes.length < OPEN_IN_STEPS_FROM) return [];
  return [
    () => treeLookup(nodes),
    () => layoutFacts(nodes),
    () => treeStructure(nodes, tree.viewLeafId),
    () => layOutAhead(after()),
    () => entryDepths(nodes),
    () => entryLinks(tree),
  ];
}

/** Lets the page handle what waits (input, paint) before the next step. */
export function nextTask(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}
