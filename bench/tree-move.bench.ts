/**
 * What one arrow move that reveals an entry of a chain costs on the renderer side, in Node, on a
 * generated session (default 25,000 entries): layout + marks + React Flow node/edge objects.
 * "full" is what every such move did before (structure rebuilt, every chain's marks, new flow
 * objects); "move" is the canvas now (structure cached per tree, lazy chain marks, reused flow
 * objects). Both in the same run, on the same tree. Prints figures; never fails.
 * Run: node --experimental-strip-types bench/tree-move.bench.ts [--entries N] [--moves N]
 */
import path from "node:path";
import { loadSessionTree } from "../main/library/tree-nodes.ts";
import { openDatabase } from "../main/store/open.ts";
import { createFlowCache, toFlowEdges, toFlowNodes } from "../renderer/src/features/tree/flow.ts";
import { layoutTree } from "../renderer/src/features/tree/layout.ts";
import { computeMarks, modelViewOfLeaf } from "../renderer/src/features/tree/marks.ts";
import { fmt, importIntoNewLibrary, median, numberArg, printTable, tempDir } from "./bench-utils.ts";
import { defaultGeneratedPath, writeGeneratedSession } from "./generate-session.ts";

const entries = numberArg("--entries") ?? 25_000;
const moves = numberArg("--moves") ?? 30;
const generated = writeGeneratedSession(defaultGeneratedPath(entries), entries);
const temp = tempDir("canopy-bench-move-");
const dbFile = path.join(temp.dir, "library.db");
const sessionId = importIntoNewLibrary(dbFile, generated.file);
const db = openDatabase(dbFile);
const started = performance.now();
const tree = loadSessionTree(db, sessionId);
const treeMs = performance.now() - started;
const json = JSON.stringify(tree).length;
db.close();
temp.cleanup();

const options = (pin: string) => ({ filter: "default" as const, viewLeafId: tree.viewLeafId, pinnedIds: [pin] });
const pins = tree.nodes.filter((_, i) => i % Math.max(1, Math.floor(tree.nodes.length / moves)) === 0).map((n) => n.id);
const full: number[] = [];
const move: number[] = [];
const cache = createFlowCache();
for (const pin of pins) {
  let t = performance.now();
  // A new nodes array: the structure cache misses, as every layout did before.
  const before = layoutTree([...tree.nodes], options(pin));
  const marks = computeMarks({ layout: before, leafId: pin, plan: null, branchPreview: null, dropTargetId: null });
  for (const node of before.nodes) if (node.kind === "chain") marks.chain(node.id);
  toFlowNodes(before);
  toFlowEdges(before);
  full.push(performance.now() - t);
  t = performance.now();
  const layout = layoutTree(tree.nodes, options(pin));
  const view = modelViewOfLeaf(layout.entry, pin);
  computeMarks({ layout, leafId: pin, plan: null, branchPreview: null, dropTargetId: null, view });
  toFlowNodes(layout, cache);
  toFlowEdges(layout, cache);
  move.push(performance.now() - t);
}
console.log(
  `${fmt(tree.nodes.length)} entries; session:tree built in ${fmt(treeMs)} ms, ${fmt(json / 1e6, 1)} MB of JSON`,
);
printTable(
  ["per reveal move", "median ms", "min ms"],
  [
    ["full (before)", fmt(median(full), 1), fmt(Math.min(...full), 1)],
    ["move (now)", fmt(median(move), 1), fmt(Math.min(...move), 1)],
    ["ratio", fmt(median(full) / median(move), 1), ""],
  ],
);
