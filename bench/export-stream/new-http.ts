/**
 * Browser mode's server as it is (a child of the export bench): the real transport and API over
 * the library at <db>; prints its port and token. Usage: node new-http.ts <db>
 */
import { createApi } from "../../main/api/dispatch.ts";
import { createAppContext } from "../../main/app-context.ts";
import { startBrowserServer } from "../../main/server/index.ts";

const dbFile = process.argv[2] ?? "";
const api = createApi(createAppContext({ dbPath: dbFile }));
const server = await startBrowserServer({ api, rendererDir: process.cwd() });
process.stdout.write(`PORT ${server.port} TOKEN ${server.token}\n`);
