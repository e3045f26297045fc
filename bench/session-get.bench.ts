/**
 * Where the time of `session:get` over HTTP goes on the generated 100k-entry session (196 MB):
 * reading and parsing the entries (the handler), the answer's JSON as one string (toJson, as the
 * server sent it before) or as pieces (as it does now), and the total as an API caller sees it
 * (the answer's bytes received over HTTP). Run:
 * node bench/session-get.bench.ts [--entries 100000]
 */
import { fileURLToPath } from "node:url";
import { toJson } from "../core/text/json-deep.ts";
import { jsonPieces } from "../core/text/json-pieces.ts";
import { createApi } from "../main/api/dispatch.ts";
import { createAppContext } from "../main/app-context.ts";
import { getSessionDetail } from "../main/library/load.ts";
import { startBrowserServer } from "../main/server/index.ts";
import { postChannel } from "../test/helpers/post-channel.ts";
import { fmt, generatedLibrary, numberArg, printTable, timed } from "./bench-utils.ts";

export async function runSessionGetBench(options: { entries?: number } = {}): Promise<void> {
  const { generated, tmp, dbPath, sessionId } = generatedLibrary("canopy-session-get-", options.entries);
  try {
    const ctx = createAppContext({ dbPath, seedDemo: false, loadUserHooks: false, importThread: true });
    const api = createApi(ctx);
    const server = await startBrowserServer({ api, rendererDir: tmp.dir });
    try {
      // The best of 3 rounds of each part (the machine may be shared).
      const best = { detail: Infinity, json: Infinity, bytes: Infinity, pieces: Infinity, http: Infinity };
      let received = 0;
      for (let round = 0; round < 3; round++) {
        // Over HTTP first: nothing the in-process parts hold is alive meanwhile (their garbage slows it).
        const started = performance.now();
        const response = await postChannel(server, "session:get", JSON.stringify({ sessionId }));
        received = 0;
        for await (const chunk of response.body ?? []) received += (chunk as Uint8Array).length;
        const httpMs = performance.now() - started;
        const detail = timed(() => getSessionDetail(ctx.db, sessionId));
        const json = timed(() => toJson({ ok: true, value: detail.value }));
        const bytes = timed(() => Buffer.from(json.value));
        const pieces = timed(() => jsonPieces({ ok: true, value: detail.value }, 3));
        if (received !== bytes.value.length)
          throw new Error(`answer sizes differ: ${received} vs ${bytes.value.length}`);
        best.detail = Math.min(best.detail, detail.ms);
        best.json = Math.min(best.json, json.ms);
        best.bytes = Math.min(best.bytes, bytes.ms);
        best.pieces = Math.min(best.pieces, pieces.ms);
        best.http = Math.min(best.http, httpMs);
      }
      console.log(`session:get of ${fmt(generated.entries)} entries: ${fmt(received / 1e6, 1)} MB of JSON\n`);
      printTable(
        ["part (best of 3)", "ms"],
        [
          ["handler: read + JSON.parse every entry (getSessionDetail)", fmt(best.detail)],
          ["before: the answer's JSON as one string (toJson)", fmt(best.json)],
          ["before: that string's bytes (utf8)", fmt(best.bytes)],
          ["now: the answer's JSON as pieces, an entry each (jsonPieces)", fmt(best.pieces)],
          ["now: over HTTP, until the last byte is received (all of it)", fmt(best.http)],
        ],
      );
    } finally {
      await server.close();
      await ctx.imports.close();
      ctx.db.close();
    }
  } finally {
    tmp.cleanup();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await runSessionGetBench({ entries: numberArg("--entries") });
}
