/**
 * session:tree-update (tree-versions.ts, core/api/tree-delta.ts): after random sequences of what
 * changes an open session (agent appends and re-imports, labels, edits, archiving, undo/redo,
 * pruning, view-leaf moves, a rewritten file with entries removed), the tree a window keeps by
 * applying each answer to the tree it had equals a fresh whole session:tree of another connection;
 * so does the tree extended by appended rows only (tree-grow.ts), which the runs must take.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Channel, RequestInput, RequestOutput } from "../../../core/api/contract.ts";
import type { SessionTreeDto, SessionTreeUpdateDto } from "../../../core/api/dto.ts";
import { applyTreeUpdate } from "../../../core/api/tree-delta.ts";
import { type Api, createApi } from "../../../main/api/dispatch.ts";
import { createAppContext } from "../../../main/app-context.ts";
import { loadSessionTree } from "../../../main/library/tree-nodes.ts";
import { treeBuilds } from "../../../main/library/tree-versions.ts";
import { fixturePath } from "../../helpers/fixtures.ts";
import { seededRandom } from "../../helpers/seeded-random.ts";
import { makeTempDir } from "../store/helpers.ts";

let tmp: ReturnType<typeof makeTempDir>;
let dbPath: string;
let apis: Api[];

beforeEach(() => {
  tmp = makeTempDir();
  dbPath = path.join(tmp.dir, "library.db");
  apis = [];
});

afterEach(() => {
  for (const api of apis) api.ctx.db.close();
  tmp.cleanup();
});

function connect(): Api {
  const api = createApi(createAppContext({ dbPath, seedDemo: false, loadUserHooks: false }));
  apis.push(api);
  return api;
}

async function ok<C extends Channel>(on: Api, channel: C, input: RequestInput<C>): Promise<RequestOutput<C>> {
  const result = await on.call(channel, input);
  if (!result.ok) throw new Error(`${channel}: ${result.error.message}`);
  return result.value;
}

const rng = seededRandom;

/** The tree without its version (another connection numbers its versions itself). */
const facts = ({ version: _version, ...tree }: SessionTreeDto) => tree;

/** A window: the tree it shows, refreshed by session:tree-update; counts the answers' kinds. */
class Window {
  tree: SessionTreeDto | null = null;
  deltas = 0;
  wholes = 0;
  readonly api: Api;
  readonly sessionId: string;
  constructor(api: Api, sessionId: string) {
    this.api = api;
    this.sessionId = sessionId;
  }
  async refresh(): Promise<SessionTreeUpdateDto | null> {
    const since = this.tree?.version;
    if (since === undefined) {
      this.tree = await ok(this.api, "session:tree", { sessionId: this.sessionId });
      return null;
    }
    const update = await ok(this.api, "session:tree-update", { sessionId: this.sessionId, since });
    if (update.kind === "delta") this.deltas++;
    else this.wholes++;
    this.tree = applyTreeUpdate(this.tree, update);
    return update;
  }
}

interface Run {
  file: string;
  sessionId: string;
  writer: Api;
  reference: Api;
  random: () => number;
  step: number;
  /** Ids named as parents before they exist (an orphan, repaired when the id comes). */
  pending: string[];
  /** The file's last line has no newline yet (stored provisionally, read again when it gets one). */
  open: boolean;
}

/** Appends `lines` to the run's file, ending the open last line first; the last may stay open. */
function appendLines(run: Run, lines: readonly string[], leaveOpen = false): void {
  const text = `${run.open ? "\n" : ""}${lines.join("\n")}${leaveOpen ? "" : "\n"}`;
  fs.appendFileSync(run.file, text);
  run.open = leaveOpen;
}

const pick = <T>(run: Run, items: readonly T[]): T => items[Math.floor(run.random() * items.length)] as T;

async function nodeIds(run: Run): Promise<string[]> {
  return (await ok(run.reference, "session:tree", { sessionId: run.sessionId })).nodes.map((node) => node.id);
}

/** The file's lines after its header that carry an id (what the agent wrote). */
function fileLines(run: Run): string[] {
  return fs
    .readFileSync(run.file, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "");
}

/** The agent appends 1–3 lines (a message, a label, an orphan or its missing parent, a duplicate id); the library re-imports. */
async function agentAppends(run: Run): Promise<string> {
  const ids = await nodeIds(run);
  const lines: string[] = [];
  const count = 1 + Math.floor(run.random() * 3);
  let parent = pick(run, ids);
  for (let i = 0; i < count; i++) {
    const roll = run.random();
    const timestamp = new Date(Date.UTC(2026, 11, 4, 0, 0, run.step * 10 + i)).toISOString();
    let id = `app-${run.step}-${i}`;
    if (roll < 0.15 && run.pending.length > 0) id = run.pending.shift() as string;
    // A duplicate id (the file is broken): the later entry wins, its node moves to the end.
    if (roll >= 0.4 && roll < 0.45) id = pick(run, ids);
    if (roll >= 0.45 && roll < 0.55) {
      // A compaction, then (on the next lines) the entries under it.
      lines.push(
        JSON.stringify({
          type: "compaction",
          id,
          parentId: parent,
          timestamp,
          summary: `summary ${run.step} ${"of a long talk ".repeat(200)}`,
          firstKeptEntryId: pick(run, ids),
          tokensBefore: 1000 + run.step,
        }),
      );
    } else if (roll >= 0.55 && roll < 0.6) {
      // A line without an id: kept, no node; the next line hangs under the same parent.
      lines.push(JSON.stringify({ type: "model_change", parentId: parent, timestamp, provider: "p", modelId: "m" }));
      continue;
    } else if (roll >= 0.6 && roll < 0.65) {
      // An assistant turn with only a tool call, and its result (markers on both nodes).
      lines.push(
        JSON.stringify({
          type: "message",
          id,
          parentId: parent,
          timestamp,
          message: {
            role: "assistant",
            content: [{ type: "toolCall", id: `call-${id}`, name: "bash", arguments: { command: "ls" } }],
            stopReason: "toolUse",
            timestamp: 0,
          },
        }),
        JSON.stringify({
          type: "message",
          id: `${id}-result`,
          parentId: id,
          timestamp,
          message: {
            role: "toolResult",
            toolCallId: `call-${id}`,
            toolName: "bash",
            content: [{ type: "text", text: "out ".repeat(1000) }],
            isError: false,
            timestamp: 0,
          },
        }),
      );
      parent = `${id}-result`;
      continue;
    } else if (roll >= 0.15 && roll < 0.3) {
      lines.push(
        JSON.stringify({
          type: "label",
          id,
          parentId: parent,
          timestamp,
          targetId: pick(run, ids),
          label: `agent ${run.step}`,
        }),
      );
    } else if (roll >= 0.3 && roll < 0.4) {
      const missing = `later-${run.step}-${i}`;
      run.pending.push(missing);
      lines.push(
        JSON.stringify({
          type: "message",
          id,
          parentId: missing,
          timestamp,
          message: { role: "user", content: `orphan ${id}`, timestamp: 0 },
        }),
      );
    } else {
      const role = run.random() < 0.5 ? "user" : "assistant";
      const content = role === "user" ? `question ${id}` : [{ type: "text", text: `answer ${id}` }];
      lines.push(
        JSON.stringify({
          type: "message",
          id,
          parentId: parent,
          timestamp,
          message: { role, content, timestamp: 0 },
        }),
      );
    }
    parent = id;
  }
  // Sometimes the agent has not written the last line's newline yet.
  const leaveOpen = run.random() < 0.15;
  appendLines(run, lines, leaveOpen);
  await ok(run.writer, "library:import", { path: run.file });
  return `append ${count}${leaveOpen ? " (open)" : ""}`;
}

/** The view leaf moved to a node, then the agent appends under it (the window refreshes after both). */
async function leafMoveThenAppend(run: Run): Promise<string> {
  const ids = await nodeIds(run);
  const leafId = pick(run, ids);
  await ok(run.writer, "session:set-view-leaf", { sessionId: run.sessionId, leafId });
  const id = `after-leaf-${run.step}`;
  const timestamp = new Date(Date.UTC(2026, 11, 4, 1, 0, run.step)).toISOString();
  appendLines(run, [
    JSON.stringify({ type: "message", id, parentId: leafId, timestamp, message: { role: "user", content: `under ${leafId}`, timestamp: 0 } }),
  ]);
  await ok(run.writer, "library:import", { path: run.file });
  return "leaf+append";
}

/** The file is rewritten by another program: its last lines removed, a line's text changed. */
async function fileRewritten(run: Run): Promise<string> {
  const lines = fileLines(run);
  const cut = Math.min(lines.length - 3, 1 + Math.floor(run.random() * 4));
  const kept = lines.slice(0, lines.length - Math.max(cut, 0));
  const at = 1 + Math.floor(run.random() * (kept.length - 1));
  kept[at] = (kept[at] as string).replace(/"text":"/, '"text":"rewritten ');
  fs.writeFileSync(run.file, `${kept.join("\n")}\n`);
  run.open = false;
  await ok(run.writer, "library:import", { path: run.file });
  return "rewrite";
}

/** One of Canopy's own changes, on a random node; refused ones (as data) change nothing. */
async function canopyChange(run: Run): Promise<string> {
  const tree = await ok(run.reference, "session:tree", { sessionId: run.sessionId });
  const node = pick(run, tree.nodes);
  const sessionId = run.sessionId;
  const ops: [string, () => Promise<unknown>][] = [
    [
      "label",
      () =>
        run.writer.call("edits:label", {
          sessionId,
          targetId: node.id,
          label: run.random() < 0.8 ? `l${run.step}` : null,
        }),
    ],
    [
      "edit",
      () =>
        run.writer.call("edits:edit-message", { sessionId, entryId: node.id, text: `edited ${run.step}` }),
    ],
    ["archive", () => run.writer.call("edits:archive", { sessionId, entryId: node.id, confirm: true })],
    ["unarchive", () => run.writer.call("edits:unarchive", { sessionId, entryId: node.id })],
    ["undo", () => run.writer.call("edits:undo", { sessionId })],
    ["redo", () => run.writer.call("edits:redo", { sessionId })],
    ["leaf", () => run.writer.call("session:set-view-leaf", { sessionId, leafId: node.id })],
    ["prune", () => run.writer.call("pruning:apply", { sessionId })],
    ["restore-pruned", () => run.writer.call("pruning:restore", { sessionId })],
  ];
  const [name, op] = pick(run, ops);
  await op();
  return name;
}

async function randomRun(fixture: string, seed: number, steps: number) {
  const file = path.join(tmp.dir, path.basename(fixture));
  fs.copyFileSync(fixturePath(fixture), file);
  const writer = connect();
  const report = await ok(writer, "library:import", { path: file });
  const sessionId = report.files[0]?.sessionId as string;
  const run: Run = { file, sessionId, writer, reference: connect(), random: rng(seed), step: 0, pending: [], open: false };
  // Two windows on one server (its own connection, the one the writes come from, as the watcher
  // and edits share it): one refreshes after every change, one after every third.
  const server = writer;
  const eager = new Window(server, sessionId);
  const lagging = new Window(server, sessionId);
  await eager.refresh();
  await lagging.refresh();
  const done: string[] = [];
  let grown = 0;
  for (run.step = 1; run.step <= steps; run.step++) {
    const roll = run.random();
    done.push(
      roll < 0.4
        ? await agentAppends(run)
        : roll < 0.45
          ? await leafMoveThenAppend(run)
          : roll < 0.5
            ? await fileRewritten(run)
            : await canopyChange(run),
    );
    // The oracle: the tree made whole by another connection, without any kept version.
    const fresh = facts(loadSessionTree(run.reference.ctx.db, sessionId));
    const before = treeBuilds.grown;
    await eager.refresh();
    if (treeBuilds.grown > before) grown++;
    expect(facts(eager.tree as SessionTreeDto), `seed ${seed} after ${done.join(", ")}`).toEqual(fresh);
    if (run.step % 3 === 0) {
      await lagging.refresh();
      expect(
        facts(lagging.tree as SessionTreeDto),
        `seed ${seed} (lagging) after ${done.join(", ")}`,
      ).toEqual(fresh);
    }
  }
  return { eager, lagging, done, grown };
}

describe("a window's tree refreshed by session:tree-update", () => {
  it.each([
    ["tree-00.jsonl", 1],
    ["tree-01.jsonl", 2],
    ["tree-01.omp.jsonl", 3],
    ["tree-02.jsonl", 4],
    ["tree-03.jsonl", 6],
    ["real-before-compaction.v1.jsonl", 7],
    ["real-large-session.v1.jsonl", 5],
    ["tree-00.jsonl", 11],
    ["tree-02.jsonl", 12],
    ["real-large-session.v1.jsonl", 13],
  ])(
    "equals a fresh session:tree after random changes (%s, seed %i)",
    async (fixture, seed) => {
      const { eager, lagging, grown } = await randomRun(fixture, seed, 30);
      // The refreshes were answered mostly by deltas: the cheap path is the one checked here.
      expect(eager.deltas).toBeGreaterThan(eager.wholes);
      // Some trees were extended by the appended rows rather than made whole.
      expect(grown).toBeGreaterThan(2);
      expect(lagging.deltas + lagging.wholes).toBe(10);
    },
    120_000,
  );
});

describe("what session:tree-update answers", () => {
  it("after an agent append: only the appended node, and the view leaf on it", async () => {
    const file = path.join(tmp.dir, "tree-00.jsonl");
    fs.copyFileSync(fixturePath("tree-00.jsonl"), file);
    const api = connect();
    const sessionId = (await ok(api, "library:import", { path: file })).files[0]?.sessionId as string;
    const before = await ok(api, "session:tree", { sessionId });
    const leaf = before.fileLeafId as string;
    fs.appendFileSync(
      file,
      `${JSON.stringify({ type: "message", id: "appended-1", parentId: leaf, timestamp: "2026-12-04T00:00:00.000Z", message: { role: "user", content: "next", timestamp: 0 } })}\n`,
    );
    await ok(api, "library:import", { path: file });
    const update = await ok(api, "session:tree-update", { sessionId, since: before.version as string });
    expect(update.kind).toBe("delta");
    if (update.kind !== "delta") return;
    expect(update.added.map((node) => node.id)).toEqual(["appended-1"]);
    expect(update.changed).toEqual([]);
    expect(update.removed).toEqual([]);
    expect(update.fileLeafId).toBe("appended-1");
  });

  it("after agent appends: the tree is extended by them, not made whole, and equals a fresh one", async () => {
    const file = path.join(tmp.dir, "tree-02.jsonl");
    fs.copyFileSync(fixturePath("tree-02.jsonl"), file);
    const api = connect();
    const reference = connect();
    const sessionId = (await ok(api, "library:import", { path: file })).files[0]?.sessionId as string;
    const window = new Window(api, sessionId);
    await window.refresh();
    for (let i = 0; i < 3; i++) {
      const leaf = window.tree?.fileLeafId as string;
      fs.appendFileSync(
        file,
        `${JSON.stringify({ type: "message", id: `grow-${i}`, parentId: leaf, timestamp: "2026-12-04T00:00:00.000Z", message: { role: "user", content: `next ${i}`, timestamp: 0 } })}\n`,
      );
      await ok(api, "library:import", { path: file });
      const { grown, whole } = treeBuilds;
      const update = await window.refresh();
      expect(treeBuilds.grown - grown, `append ${i}`).toBe(1);
      expect(treeBuilds.whole - whole, `append ${i}`).toBe(0);
      expect(update).toMatchObject({ kind: "delta", removed: [], changed: [] });
      expect(facts(window.tree as SessionTreeDto)).toEqual(facts(loadSessionTree(reference.ctx.db, sessionId)));
    }
  });

  it("after pruning and restoring appended tool outputs: made whole, equal to a fresh tree", async () => {
    const file = path.join(tmp.dir, "tree-00.jsonl");
    fs.copyFileSync(fixturePath("tree-00.jsonl"), file);
    const api = connect();
    const reference = connect();
    const sessionId = (await ok(api, "library:import", { path: file })).files[0]?.sessionId as string;
    const window = new Window(api, sessionId);
    await window.refresh();
    let parent = window.tree?.fileLeafId as string;
    const lines: string[] = [];
    for (let i = 0; i < 30; i++) {
      const timestamp = new Date(Date.UTC(2026, 11, 4, 2, 0, i)).toISOString();
      const call = { type: "toolCall", id: `call-${i}`, name: "bash", arguments: { command: `ls ${i}` } };
      lines.push(
        JSON.stringify({ type: "message", id: `a-${i}`, parentId: parent, timestamp, message: { role: "assistant", content: [call], stopReason: "toolUse", timestamp: 0 } }),
        JSON.stringify({ type: "message", id: `r-${i}`, parentId: `a-${i}`, timestamp, message: { role: "toolResult", toolCallId: `call-${i}`, toolName: "bash", content: [{ type: "text", text: `output ${i} `.repeat(2500) }], isError: false, timestamp: 0 } }),
      );
      parent = `r-${i}`;
    }
    fs.appendFileSync(file, `${lines.join("\n")}\n`);
    await ok(api, "library:import", { path: file });
    await window.refresh();
    const fresh = () => facts(loadSessionTree(reference.ctx.db, sessionId));
    expect(facts(window.tree as SessionTreeDto)).toEqual(fresh());
    const pruned = await ok(api, "pruning:apply", { sessionId });
    expect(pruned.prunedCount).toBeGreaterThan(0);
    await window.refresh();
    expect(window.tree?.nodes.some((node) => node.pruned)).toBe(true);
    expect(facts(window.tree as SessionTreeDto)).toEqual(fresh());
    await ok(api, "pruning:restore", { sessionId });
    await window.refresh();
    expect(window.tree?.nodes.some((node) => node.pruned)).toBe(false);
    expect(facts(window.tree as SessionTreeDto)).toEqual(fresh());
  });

  it("after a view-leaf move: no node at all", async () => {
    const api = connect();
    const sessionId = (await ok(api, "library:import", { path: fixturePath("tree-00.jsonl") })).files[0]
      ?.sessionId as string;
    const before = await ok(api, "session:tree", { sessionId });
    const target = before.nodes.find((node) => node.kind === "user" && node.id !== before.viewLeafId)
      ?.id as string;
    await ok(api, "session:set-view-leaf", { sessionId, leafId: target });
    const update = await ok(api, "session:tree-update", { sessionId, since: before.version as string });
    expect(update).toMatchObject({ kind: "delta", removed: [], changed: [], added: [], viewLeafId: target });
    expect(update.version).toBe(before.version);
  });

  it("whole, for a version this server never made (another server, another session's)", async () => {
    const api = connect();
    const other = connect();
    const report = await ok(api, "library:import", { path: fixturePath("tree-00.jsonl") });
    const sessionId = report.files[0]?.sessionId as string;
    const second = (await ok(api, "library:import", { path: fixturePath("tree-01.jsonl") })).files[0]
      ?.sessionId as string;
    const elsewhere = await ok(other, "session:tree", { sessionId });
    const ofAnother = await ok(api, "session:tree", { sessionId: second });
    for (const since of [elsewhere.version as string, ofAnother.version as string, "not-a-version"]) {
      const update = await ok(api, "session:tree-update", { sessionId, since });
      expect(update.kind).toBe("full");
      expect(facts(applyTreeUpdate(null, update))).toEqual(facts(elsewhere));
    }
  });
});
