/**
 * The export routes as they were before export streamed (a child of the export bench): the
 * whole JSONL text built as one string (the old code, kept as the tests' oracle), then written
 * to the file, stdout or an HTTP response.
 * Usage: node old-routes.ts <file|stdout|http> <db> <sessionId> [out]
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { writeOutputFile } from "../../main/library/output-file.ts";
import { openDatabase } from "../../main/store/open.ts";
import { oldExportSession as exportSession } from "../../test/helpers/export-oracle.ts";

const [route, dbFile, sessionId, out] = process.argv.slice(2) as [string, string, string, string?];
const db = openDatabase(dbFile);
if (route === "file") {
  const { text = "" } = exportSession(db, sessionId);
  writeOutputFile(out ?? "", text, "x.jsonl");
} else if (route === "stdout") {
  const { text = "" } = exportSession(db, sessionId);
  process.stdout.write(text);
} else {
  const server = createServer((req, res) => {
    const { text = "", ...rest } = exportSession(db, sessionId);
    res.writeHead(200, {
      "content-type": "application/jsonl",
      "content-length": Buffer.byteLength(text),
      "x-canopy-export": encodeURIComponent(JSON.stringify(rest)),
    });
    res.end(text);
    void req;
  });
  server.listen(0, "127.0.0.1", () => {
    process.stdout.write(`PORT ${(server.address() as AddressInfo).port} TOKEN none\n`);
  });
}
