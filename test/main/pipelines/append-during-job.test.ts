// The session's agent appends to its file while a compaction or a branch summary is being written
// (a slow fake model on 127.0.0.1, the grown file re-imported for real): nothing is saved — the
// file keeps exactly the agent's lines — and the one-line error says the agent added entries,
// not that the user moved the view leaf. A view leaf the user moved meanwhile is named as such.
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { FakeServer } from "../../helpers/fake-openai-server.ts";
import { closeServedHarness, type Harness, startServedHarness, until } from "./harness.ts";
import { plainSession } from "./sessions.ts";

let server: FakeServer;
let h: Harness;
let sessionId: string;
let file: string;

const AGENT_ADDED =
  "The session's agent added entries while the summary was being written; nothing was saved. Run it again on the session as it is now.";

beforeEach(async () => {
  ({ server, h } = await startServedHarness({ model: true, keepRecentTokens: 1500 }));
  sessionId = await h.importSession(plainSession());
  file = path.join(h.dir, "session.jsonl");
});
afterEach(() => closeServedHarness({ server, h }));

/** The agent writes its next user message after a4, and the library takes the grown file in. */
async function agentAppends(): Promise<void> {
  const line = {
    type: "message",
    id: "u3",
    parentId: "a4",
    timestamp: "2026-02-01T11:00:00.000Z",
    message: { role: "user", content: [{ type: "text", text: "Next, the docs." }], timestamp: 1 },
  };
  fs.appendFileSync(file, `${JSON.stringify(line)}\n`);
  const report = await h.call("library:import", { path: file });
  expect(report.files[0]?.entriesAdded).toBe(1);
}

/** Every summary request answers only after `ms`. */
function slowReplies(ms: number): void {
  server.enqueue(
    { type: "reply", text: "History.", headersDelayMs: ms },
    { type: "reply", text: "Short.", headersDelayMs: ms },
  );
}

describe("the agent appends to the session while a summary is written", () => {
  const jobs = {
    compaction: () => h.api.call("compaction:run", { sessionId }),
    "branch summary": () => h.api.call("navigation:navigate", { sessionId, targetId: "a2", summarize: true }),
  };
  for (const [name, start] of Object.entries(jobs)) {
    it(`${name}: nothing is saved, and the error says the agent added entries`, async () => {
      slowReplies(600);
      const running = start();
      await until(() => server.requests.length >= 1, 5000, "the summary request");
      await agentAppends();
      const grown = fs.readFileSync(file, "utf8");
      const result = await running;
      expect(result).toEqual({ ok: false, error: { code: "conflict", message: AGENT_ADDED } });
      expect(fs.readFileSync(file, "utf8")).toBe(grown);
      const after = await h.snapshot(sessionId);
      expect(after.ids.slice(-2)).toEqual(["a4", "u3"]);
      expect(after.viewLeafId).toBe("u3");
    });
  }

  it("a view leaf the user moved meanwhile is named as such", async () => {
    slowReplies(600);
    const running = h.api.call("compaction:run", { sessionId });
    await until(() => server.requests.length >= 1, 5000, "the summary request");
    await h.call("session:set-view-leaf", { sessionId, leafId: "a3" });
    const result = await running;
    expect(result).toEqual({
      ok: false,
      error: {
        code: "conflict",
        message: "The view leaf was moved while the summary was being written; nothing was saved. Run it again.",
      },
    });
  });
});
