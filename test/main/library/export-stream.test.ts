// The streamed export (export-lines.ts) writes the same bytes as the export did when it built the
// whole text first (test/helpers/export-oracle.ts), on every fixture and a generated session,
// with every option (resume leaf, leaf null, renamed pi/omp, archived branches with labels,
// pruned outputs and their originals), through every route: the text, a file, the CLI's stdout
// and browser mode's download. A failure in the middle leaves the target as it was.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXPORT_FILE_TYPE, EXPORT_RESULT_HEADER } from "../../../core/api/contract.ts";
import type { UsedIds } from "../../../core/session/ids.ts";
import { exportSession, exportSessionToFile, type ExportOptions } from "../../../main/library/export.ts";
import { CHUNK_CHARS } from "../../../main/library/export-lines.ts";
import { type BrowserServer, startBrowserServer } from "../../../main/server/index.ts";
import { generateSession } from "../../../bench/generate-session.ts";
import { postChannel } from "../../helpers/post-channel.ts";
import { runCliCaptured } from "../../helpers/cli.ts";
import { oldExportSession } from "../../helpers/export-oracle.ts";
import { fixturePath, fixturesDir } from "../../helpers/fixtures.ts";
import { createHarness, type Harness, removeDir } from "../pipelines/harness.ts";
import { fixtureNames } from "./helpers.ts";

process.env.CANOPY_NO_DEMO = "1";

let h: Harness;
let server: BrowserServer;
/** Session id → the option sets it is exported with. */
const cases = new Map<string, ExportOptions[]>();

/** Ids g1, g2, … (not taken): both exports draw the same ones. */
function counter(): (used: UsedIds) => string {
  let n = 0;
  return (used) => {
    let id: string;
    do id = `g${++n}`;
    while (used.has(id));
    return id;
  };
}

/**
 * `text` with the ids and times the export draws (resume marker, pi rename entry: the request
 * cannot fix them) replaced by placeholders.
 */
function drawn(text: string): string {
  return text
    .split("\n")
    .map((line) => {
      if (!line.includes('"canopy.resume"') && !line.startsWith('{"type":"session_info"')) return line;
      return JSON.stringify({ ...(JSON.parse(line) as object), id: "drawn", timestamp: "now" });
    })
    .join("\n");
}

const NOW = () => new Date("2026-12-03T22:00:00.000Z");
const fixed = (options: ExportOptions): ExportOptions => ({ ...options, now: NOW, generateId: counter() });

async function importFile(file: string): Promise<string> {
  const report = await h.call("library:import", { path: file });
  const id = report.files[0]?.sessionId;
  if (!id) throw new Error(`${file} did not import`);
  return id;
}

/** Renames, labels, archives a side branch (with a label inside it) and prunes, as a user can. */
async function edit(sessionId: string): Promise<number> {
  await h.call("edits:rename", { sessionId, title: "Renamed \u2014 streamed" });
  const tree = await h.call("session:tree", { sessionId });
  const byId = new Map(tree.nodes.map((n) => [n.id, n]));
  const onPath = new Set<string>();
  for (let id = tree.viewLeafId; id !== null; id = byId.get(id)?.parentId ?? null) onPath.add(id);
  const side = tree.nodes.find((n) => !onPath.has(n.id) && n.parentId !== null && onPath.has(n.parentId));
  const kept = tree.nodes.find((n) => onPath.has(n.id) && n.parentId !== null);
  if (kept) await h.call("edits:label", { sessionId, targetId: kept.id, label: "kept" });
  if (side) {
    await h.call("edits:label", { sessionId, targetId: side.id, label: "archived" });
    await h.call("edits:archive", { sessionId, entryId: side.id });
  }
  const { prunedCount } = await h.call("pruning:apply", { sessionId });
  // The options have something to do: a branch is left out, pruned outputs differ from originals.
  const { db } = h.api.ctx;
  expect(side).toBeDefined();
  expect(exportSession(db, sessionId, { withoutArchived: true }).lines).toBeLessThan(
    exportSession(db, sessionId).lines,
  );
  if (prunedCount > 0) {
    expect(exportSession(db, sessionId, { originals: true }).text).not.toBe(
      exportSession(db, sessionId).text,
    );
  }
  return prunedCount;
}

beforeAll(async () => {
  h = createHarness();
  for (const name of fixtureNames(fixturesDir())) {
    const id = await importFile(fixturePath(name));
    const leaf = (await h.call("session:tree", { sessionId: id })).nodes[3]?.id ?? null;
    cases.set(id, [{}, { leafId: leaf }, { leafId: null }]);
  }
  // Edited copies of a pi and an omp file (each its own session id).
  let pruned = 0;
  for (const name of ["tree-02.jsonl", "tree-01.omp.jsonl"]) {
    const text = fs.readFileSync(fixturePath(name), "utf8").replace(/"id":"([^"]+)"/, '"id":"$1-edited"');
    const file = path.join(h.dir, `edited-${name}`);
    fs.writeFileSync(file, text);
    const id = await importFile(file);
    pruned += await edit(id);
    cases.set(id, [
      {},
      { withoutArchived: true },
      { originals: true },
      { withoutArchived: true, leafId: null },
    ]);
  }
  // More than a few chunks, with malformed lines among the entries.
  const lines = generateSession(3000, { sessionId: "generated-stream" }).text.split("\n");
  for (const at of [1, 700, 2900]) lines.splice(at, 0, `{"broken": line ${at}`);
  const generated = path.join(h.dir, "generated.jsonl");
  fs.writeFileSync(generated, lines.join("\n"));
  expect(fs.statSync(generated).size).toBeGreaterThan(3 * CHUNK_CHARS);
  const generatedId = await importFile(generated);
  pruned += await edit(generatedId);
  expect(pruned).toBeGreaterThan(0);
  cases.set(generatedId, [{}, { leafId: null }, { withoutArchived: true }, { originals: true }]);
  server = await startBrowserServer({ api: h.api, rendererDir: h.dir });
}, 300_000);

afterAll(async () => {
  await server?.close();
  h?.api.ctx.db.close();
  if (h) removeDir(h.dir);
});

describe("the streamed export equals the export built as one text", () => {
  it("as text and to a file, with every option", () => {
    expect(cases.size).toBeGreaterThanOrEqual(10);
    const { db } = h.api.ctx;
    for (const [id, optionSets] of cases) {
      for (const options of optionSets) {
        const want = oldExportSession(db, id, fixed(options));
        const text = exportSession(db, id, fixed(options));
        expect(text, `${id} ${JSON.stringify(options)}`).toEqual(want);
        const out = path.join(h.dir, "out", "export.jsonl");
        const written = exportSessionToFile(db, id, out, fixed(options));
        expect(fs.readFileSync(out, "utf8") === want.text, `${id} ${JSON.stringify(options)} file`).toBe(
          true,
        );
        expect(written).toEqual({ ...want, text: undefined, path: out });
      }
    }
    expect(fs.readdirSync(path.join(h.dir, "out"))).toEqual(["export.jsonl"]);
  });

  it("on the CLI's stdout", async () => {
    for (const id of cases.keys()) {
      const run = await runCliCaptured(["export", id, "--db", h.dbPath]);
      expect(run.err).toBe("");
      expect(run.code).toBe(0);
      expect(drawn(run.out) === drawn(oldExportSession(h.api.ctx.db, id).text ?? ""), id).toBe(true);
    }
  });

  it("as browser mode's download, with its length and result header, leaving no spool file", async () => {
    for (const [id, optionSets] of cases) {
      for (const options of optionSets.filter((o) => o.withoutArchived !== true)) {
        const input = { sessionId: id, ...options };
        const response = await postChannel(server, "session:export", JSON.stringify(input), EXPORT_FILE_TYPE);
        expect(response.headers.get("content-type")).toBe(EXPORT_FILE_TYPE);
        const body = await response.text();
        const want = oldExportSession(h.api.ctx.db, id, options);
        expect(drawn(body) === drawn(want.text ?? ""), `${id} ${JSON.stringify(options)}`).toBe(true);
        expect(Number(response.headers.get("content-length"))).toBe(Buffer.byteLength(body));
        const result = JSON.parse(decodeURIComponent(response.headers.get(EXPORT_RESULT_HEADER) ?? ""));
        expect(result.lines).toBe(want.lines);
        expect(result.path).toBeUndefined();
      }
    }
    expect(fs.readdirSync(path.join(h.dir, "export-downloads"))).toEqual([]);
  });

  it("answers an error as the contract's JSON, and removes the spool files a killed server left", async () => {
    const folder = path.join(h.dir, "export-downloads");
    // A server killed while spooling: its file (and its write's temp file) stay behind.
    const killed = spawnSync(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `const { tempPathFor } = await import(${JSON.stringify(pathToFileURL(path.resolve(import.meta.dirname, "../../../main/library/output-temp.ts")).href)});
         const fs = await import("node:fs");
         fs.mkdirSync(${JSON.stringify(folder)}, { recursive: true });
         const spool = tempPathFor(${JSON.stringify(path.join(folder, "download.jsonl"))});
         fs.writeFileSync(spool, "half a download");
         fs.writeFileSync(tempPathFor(spool), "half a spool");
         process.kill(process.pid, "SIGKILL");`,
      ],
      { encoding: "utf8" },
    );
    expect(killed.signal).toBe("SIGKILL");
    expect(fs.readdirSync(folder)).toHaveLength(2);
    const input = JSON.stringify({ sessionId: "no-such-session" });
    const response = await postChannel(server, "session:export", input, EXPORT_FILE_TYPE);
    expect(response.headers.get("content-type")).toBe("application/json");
    const answer = (await response.json()) as { ok: boolean; error: { code: string; message: string } };
    expect(answer.ok).toBe(false);
    expect(answer.error.code).toBe("not_found");
    expect(answer.error.message).toContain("no-such-session");
    expect(fs.readdirSync(folder)).toEqual([]);
  });
});
