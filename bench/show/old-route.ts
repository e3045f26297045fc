/**
 * `canopy show` as it was before it streamed (a child of the show bench): the whole session
 * detail read and parsed, rendered into one string (test/helpers/show-oracle.ts), then printed.
 * Usage: node old-route.ts <db> <sessionId>
 */
import { openDatabase } from "../../main/store/open.ts";
import { oldShowText } from "../../test/helpers/show-oracle.ts";

const [dbFile, sessionId] = process.argv.slice(2) as [string, string];
const db = openDatabase(dbFile);
const text = oldShowText(db, sessionId);
db.close();
process.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
