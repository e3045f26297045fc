// The pipeline commands of the `canopy` CLI: compact (--dry-run --json plan keys, offline run),
// navigate --summarize, prune --dry-run, settings get/set with one-line errors and exit codes.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type CliRun, runCliCaptured } from "../../helpers/cli.ts";
import { fixturePath } from "../../helpers/fixtures.ts";
import { startFakeOpenAiServer } from "../../helpers/fake-openai-server.ts";
import { promptText, removeDir, SessionFile } from "./harness.ts";
import { chainSession, plainEstimate, plainFileTags, plainPlan, plainSession } from "./sessions.ts";

process.env.CANOPY_NO_DEMO = "1";

let dir: string;
let db: string;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "canopy-cli-pipelines-"));
  db = path.join(dir, "library.db");
});

afterEach(() => {
  removeDir(dir);
});

function cli(...args: string[]): Promise<CliRun> {
  return runCliCaptured([...args, "--db", db]);
}

function write(name: string, session: SessionFile): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, session.text());
  return file;
}

function oneErrorLine(run: CliRun): string {
  expect(run.out).toBe("");
  const lines = run.err.trimEnd().split("\n");
  expect(lines).toHaveLength(1);
  return lines[0] ?? "";
}

describe("canopy compact", () => {
  it("--dry-run --json prints one object with exactly the plan keys", async () => {
    const file = write("plain.jsonl", plainSession());
    const run = await cli("compact", file, "--dry-run", "--json", "--keep-recent-tokens", "1500");
    expect(run.err).toBe("");
    expect(run.code).toBe(0);
    const plan = JSON.parse(run.out) as Record<string, unknown>;
    expect(Object.keys(plan)).toEqual([
      "firstKeptEntryId",
      "isSplitTurn",
      "turnStartEntryId",
      "tokensBefore",
      "keepRecentTokens",
      "summarizeEntryIds",
      "turnPrefixEntryIds",
      "keptEntryIds",
      "previousSummary",
      "readFiles",
      "modifiedFiles",
    ]);
    expect(plan).toEqual(plainPlan);
  });

  it("--dry-run without --json prints the readable plan and appends nothing", async () => {
    const file = write("plain.jsonl", plainSession());
    const run = await cli("compact", file, "--dry-run", "--keep-recent-tokens", "1500");
    expect(run.code).toBe(0);
    expect(run.out).toMatch(/^Compaction plan at leaf a4 \(summarizer: [^)]*offline/i);
    expect(run.out).toContain("first kept entry   u2");
    const again = await cli("compact", file, "--dry-run", "--json", "--keep-recent-tokens", "1500");
    expect((JSON.parse(again.out) as { firstKeptEntryId: string }).firstKeptEntryId).toBe("u2");
  });

  it("offline: appends the compaction, prints it, and a second run says Already compacted", async () => {
    const file = write("plain.jsonl", plainSession());
    const run = await cli("compact", file, "--keep-recent-tokens", "1500");
    expect(run.err).toBe("");
    expect(run.code).toBe(0);
    const match = /^Compacted: entry ([0-9a-f]{8}), first kept u2, tokens before (\d+)\n\n/.exec(run.out);
    expect(match).not.toBeNull();
    expect(Number(match?.[2])).toBe(plainEstimate);
    expect(run.out.trimEnd().endsWith(plainFileTags)).toBe(true);

    const context = await cli("context", file, "--json");
    const messages = JSON.parse(context.out) as { role: string; content: { text: string }[] }[];
    expect(messages).toHaveLength(3);
    expect(
      messages[0]?.content[0]?.text.startsWith(
        promptText("compaction-summary-context").split("{{summary}}")[0] ?? "",
      ),
    ).toBe(true);

    const again = await cli("compact", file);
    expect(again.code).toBe(1);
    expect(oneErrorLine(again)).toBe("canopy: error: Already compacted");
  });
});

// A refused model: the summary call's error said its own "Summarization failed:" after the error's.
describe("a model that refuses the summary call", () => {
  it("compact and navigate --summarize say what failed once, exit 1", async () => {
    const fake = await startFakeOpenAiServer();
    try {
      const model = { baseUrl: fake.baseUrl, id: "fake-refusing" };
      expect((await cli("settings", "set", "model", JSON.stringify(model))).code).toBe(0);
      const refused = { type: "error" as const, status: 401, body: { error: { message: "Invalid API key" } } };
      fake.enqueue(refused);
      const compact = await cli("compact", write("plain.jsonl", plainSession()), "--keep-recent-tokens", "1500");
      expect(compact.code).toBe(1);
      expect(oneErrorLine(compact)).toMatch(/^canopy: error: Compaction failed: 401 Invalid API key( —|$)/);
      fake.enqueue(refused);
      const navigate = await cli("navigate", write("chain.jsonl", chainSession(4)), "a1", "--summarize");
      expect(navigate.code).toBe(1);
      expect(oneErrorLine(navigate)).toMatch(/^canopy: error: Branch summary failed: 401 Invalid API key( —|$)/);
    } finally {
      await fake.close();
    }
  });
});

describe("hook problems on the command line", () => {
  it("a hook module that does not load and a handler that throws are each said in one line on stderr", async () => {
    const hooksDir = path.join(dir, "hooks");
    fs.mkdirSync(hooksDir);
    fs.writeFileSync(path.join(hooksDir, "a-broken.mjs"), "export default 42;\n");
    fs.writeFileSync(
      path.join(hooksDir, "b-throws.mjs"),
      'export default (canopy) => canopy.on("session_before_compact", () => { throw new Error("hook exploded"); });\n',
    );
    const file = write("plain.jsonl", plainSession());
    const run = await cli("compact", file, "--keep-recent-tokens", "1500");
    expect(run.code).toBe(0);
    expect(run.out).toMatch(/^Compacted: entry/);
    expect(run.err.trimEnd().split("\n")).toEqual([
      "hook a-broken.mjs: could not load hook module: its default export is not a function (expected `export default (canopy) => { canopy.on(…) }`)",
      "hook b-throws.mjs failed in session_before_compact (skipped): hook exploded",
    ]);
  });
});

describe("canopy navigate", () => {
  it("--summarize writes a branch summary at the destination (offline)", async () => {
    const file = write("chain.jsonl", chainSession(4));
    const run = await cli("navigate", file, "a1", "--summarize");
    expect(run.err).toBe("");
    expect(run.code).toBe(0);
    const match = /^View leaf: ([0-9a-f]{8}) \(was a2\), branch summary ([0-9a-f]{8})$/.exec(
      run.out.trimEnd(),
    );
    expect(match).not.toBeNull();
    expect(match?.[1]).toBe(match?.[2]);
    const context = await cli("context", file, "--json");
    expect((JSON.parse(context.out) as unknown[]).length).toBe(3);
  });

  it("--summarize with nothing left behind (a move down the branch) says no summary was written", async () => {
    const file = write("chain.jsonl", chainSession(4));
    expect((await cli("navigate", file, "a1")).code).toBe(0);
    const run = await cli("navigate", file, "a2", "--summarize");
    expect(run.code).toBe(0);
    expect(run.out.trimEnd()).toBe("View leaf: a2 (was a1)");
    // As the app's dialog says it (which offers no Summarize then).
    expect(run.err.trimEnd()).toBe("no branch summary: the branch you leave has no entries of its own");
    // Moving back up leaves u2 and a2 behind: summarized, and nothing said.
    const back = await cli("navigate", file, "a1", "--summarize");
    expect(back.out).toMatch(/, branch summary [0-9a-f]{8}\n$/);
    expect(back.err).toBe("");
  });

  // Both were ignored: the view leaf moved without the summary the instructions were written for,
  // and --replace-prompt alone summarized with the branch prompt it was meant to replace.
  it("--instructions without --summarize, and --replace-prompt without --instructions, are refused before anything moves", async () => {
    const file = write("chain.jsonl", chainSession(4));
    const focus = await cli("navigate", file, "a1", "--instructions", "Keep the parser decisions");
    expect(focus.code).toBe(2);
    expect(oneErrorLine(focus)).toBe(
      "canopy: --instructions are for the branch summary: add --summarize (see `canopy help`)",
    );
    for (const extra of [[], ["--summarize"]]) {
      const replace = await cli("navigate", file, "a1", "--replace-prompt", ...extra);
      expect(replace.code).toBe(2);
      expect(oneErrorLine(replace)).toBe(
        'canopy: --replace-prompt uses the instructions instead of the branch-summary prompt: add --summarize --instructions "…" (see `canopy help`)',
      );
    }
    // Nothing moved: the view leaf is still a2.
    expect((await cli("navigate", file, "a2")).out.trimEnd()).toBe("Already at this point: the view leaf is a2; nothing changed.");
  });

  // Before, the summary written said only "No content to summarize" and nothing said why; the
  // app's move dialog says so before (NavigationPreviewDto.summaryHasMessages).
  it("--summarize leaving a branch with no message in it: writes the summary and says on stderr it has nothing to read", async () => {
    const file = write(
      "model-change.jsonl",
      chainSession(4).add("m3", "model_change", { provider: "openai", modelId: "gpt-other" }),
    );
    const run = await cli("navigate", file, "a2", "--summarize");
    expect(run.code).toBe(0);
    const match = /^View leaf: ([0-9a-f]{8}) \(was m3\), branch summary ([0-9a-f]{8})$/.exec(run.out.trimEnd());
    expect(match).not.toBeNull();
    expect(run.err.trimEnd()).toBe(
      `branch summary ${match?.[2]} only says “No content to summarize”: the branch you leave has 1 entry, none of them a message`,
    );
    // --json: stdout stays one parseable object, the line goes to stderr.
    expect((await cli("navigate", file, "m3")).code).toBe(0);
    const again = await cli("navigate", file, "a2", "--summarize", "--json");
    const result = JSON.parse(again.out) as { summaryEntryId: string };
    expect(again.err.trimEnd()).toBe(
      `branch summary ${result.summaryEntryId} only says “No content to summarize”: the branch you leave has 1 entry, none of them a message`,
    );
    // A branch with a message in it: nothing said.
    const back = await cli("navigate", file, "a1", "--summarize");
    expect(back.err).toBe("");
  });

  it("to the view leaf itself: says it is already there (as the app does), with or without --summarize", async () => {
    const file = write("chain.jsonl", chainSession(4));
    for (const extra of [[], ["--summarize"]]) {
      const run = await cli("navigate", file, "a2", ...extra);
      expect(run.code).toBe(0);
      expect(run.out.trimEnd()).toBe("Already at this point: the view leaf is a2; nothing changed.");
      expect(run.err).toBe("");
    }
  });

  it("--summarize to the user message just below the view leaf: the leaf stays, no summary, both said", async () => {
    const file = write("chain.jsonl", chainSession(4));
    expect((await cli("navigate", file, "a1")).code).toBe(0);
    const run = await cli("navigate", file, "u2", "--summarize");
    expect(run.code).toBe(0);
    expect(run.out.trimEnd()).toBe("View leaf: a1 (unchanged)\nEditor text: Second question: read and change files.");
    expect(run.err.trimEnd()).toBe("no branch summary: the branch you leave has no entries of its own");
  });

  it("to a user message without summary: the editor text, and --json gives the result object", async () => {
    const file = write("chain.jsonl", chainSession(4));
    const run = await cli("navigate", file, "u2", "--json");
    expect(run.code).toBe(0);
    expect(JSON.parse(run.out)).toMatchObject({
      cancelled: false,
      newLeafId: "a1",
      oldLeafId: "a2",
      editorText: "Second question: read and change files.",
      summaryEntryId: null,
    });
  });

  it("cancelled by a hook: says nothing changed, exits 1 as a cancelled compaction does (JSON still on stdout)", async () => {
    const hooksDir = path.join(dir, "hooks");
    fs.mkdirSync(hooksDir);
    fs.writeFileSync(
      path.join(hooksDir, "no-moves.mjs"),
      'export default (canopy) => canopy.on("session_before_tree", () => ({ cancel: true }));\n',
    );
    const file = write("chain.jsonl", chainSession(4));
    const run = await cli("navigate", file, "a1", "--summarize");
    expect(run.code).toBe(1);
    expect(oneErrorLine(run)).toBe("canopy: error: Navigation cancelled by a hook; nothing changed.");
    const json = await cli("navigate", file, "a1", "--summarize", "--json");
    expect(json.code).toBe(1);
    expect(JSON.parse(json.out)).toMatchObject({ cancelled: true, aborted: false, newLeafId: "a2", oldLeafId: "a2" });
    expect(json.err.trimEnd()).toBe("canopy: error: Navigation cancelled by a hook; nothing changed.");
    const shown = await cli("context", file, "--json");
    expect((JSON.parse(shown.out) as unknown[]).length).toBe(4);
  });

  it("an unknown entry: one line, exit 1", async () => {
    const file = write("chain.jsonl", chainSession(4));
    const run = await cli("navigate", file, "nope1234");
    expect(run.code).toBe(1);
    expect(oneErrorLine(run)).toMatch(/^canopy: error: Session \S+ has no entry nope1234$/);
  });
});

describe("canopy prune", () => {
  function bigSession(): SessionFile {
    const file = new SessionFile().user("u1", "Run everything.");
    for (let i = 1; i <= 5; i++) {
      file
        .assistant(`a${i}`, "", { calls: [{ name: "bash", args: { command: `step ${i}` }, id: `c${i}` }] })
        .toolResult(`t${i}`, `t${i}`.padEnd(60000, "x"), "bash", `c${i}`);
    }
    return file.assistant("done", "Done.");
  }

  it("--dry-run lists the candidates and changes nothing; then prune and --restore", async () => {
    const file = write("big.jsonl", bigSession());
    const dry = await cli("prune", file, "--dry-run");
    expect(dry.code).toBe(0);
    expect(dry.out.trimEnd().split("\n")).toEqual([
      "2 tool outputs could be pruned, saving ~29982 tokens",
      "  t1 bash ~15000 tokens",
      "  t2 bash ~15000 tokens",
    ]);
    const json = await cli("prune", file, "--dry-run", "--json");
    expect(JSON.parse(json.out)).toMatchObject({ willPrune: true, tokensSaved: 29982 });
    const pruned = await cli("prune", file);
    expect(pruned.out.trimEnd()).toBe(
      "Pruned 2 tool outputs, ~29982 tokens saved. Undo with `prune --restore`.",
    );
    const restored = await cli("prune", file, "--restore");
    expect(restored.out.trimEnd()).toBe("Restored 2 tool outputs.");
  });

  it("prune --restore with --dry-run or --leaf is refused before it restores anything", async () => {
    const file = write("big.jsonl", bigSession());
    expect((await cli("prune", file)).code).toBe(0);
    const dry = await cli("prune", file, "--restore", "--dry-run");
    expect(dry.code).toBe(2);
    expect(oneErrorLine(dry)).toBe(
      "canopy: --restore puts back every pruned output of the session; it takes no --dry-run (see `canopy help`)",
    );
    const restored = await cli("prune", file, "--restore");
    expect(restored.out.trimEnd()).toBe("Restored 2 tool outputs.");
  });
});

// Options a command does not take were ignored: a script asking `show --json` got text, and
// `prune --restore --dry-run` restored every pruned output (below).
describe("options a command does not take", () => {
  it("are a usage error (exit 2) naming what it takes, and nothing runs", async () => {
    const file = write("plain.jsonl", plainSession());
    const show = await cli("show", file, "--json");
    expect(show.code).toBe(2);
    expect(oneErrorLine(show)).toBe("canopy: show does not take --json (it takes no options) (see `canopy help`)");
    const list = await cli("list", "--limit", "3", "--dry-run");
    expect(list.code).toBe(2);
    expect(oneErrorLine(list)).toBe(
      "canopy: list does not take --limit, --dry-run (it takes --deleted, --json) (see `canopy help`)",
    );
    expect((await cli("compact", file, "--restore")).code).toBe(2);
    expect((await cli("list", "--json")).code).toBe(0);
  });
});

// The demo's sessions are the fixtures' with "~demo" after the id: once the imported one was
// deleted, its full id matched the demo's as a prefix, and `show`, `prune`, `delete`… acted on
// that other session without a word.
describe("the full id of a deleted session", () => {
  it("says it is deleted, never taken as the prefix of another session's id", async () => {
    const id = "01a2361e-31af-75a7-95c2-9bc5d25359f5";
    const text = fs.readFileSync(fixturePath("tree-00.jsonl"), "utf8");
    const own = path.join(dir, "own.jsonl");
    fs.writeFileSync(own, text);
    fs.writeFileSync(path.join(dir, "copy.jsonl"), text.replace(`"id":"${id}"`, `"id":"${id}~copy"`));
    expect((await cli("import", dir)).code).toBe(0);
    expect((await cli("delete", id)).code).toBe(0);
    const show = await cli("show", id);
    expect(show.code).toBe(1);
    expect(oneErrorLine(show)).toBe(
      `canopy: error: session ${id} is deleted from the library (\`canopy undelete ${id}\` brings it back)`,
    );
    expect((await cli("delete", id)).code).toBe(1);
    expect((await cli("list", "--json")).out).toContain(`"${id}~copy"`);
    // A prefix still finds the one listed session it starts.
    expect((await cli("show", `${id}~c`)).code).toBe(0);
    expect((await cli("undelete", id)).code).toBe(0);
    expect((await cli("show", id)).out).toContain(`${id}  `);
  });
});

describe("canopy settings", () => {
  it("get, set and get again", async () => {
    const get = await cli("settings", "get", "compaction.reserveTokens");
    expect(get).toEqual({ code: 0, out: "16384\n", err: "" });
    const set = await cli("settings", "set", "compaction.reserveTokens", "8000");
    expect(set).toEqual({ code: 0, out: "compaction.reserveTokens = 8000\n", err: "" });
    expect((await cli("settings", "get", "compaction.reserveTokens")).out).toBe("8000\n");
    const all = JSON.parse((await cli("settings", "get")).out) as { compaction: { reserveTokens: number } };
    expect(all.compaction.reserveTokens).toBe(8000);
  });

  it("set --json prints the new value as JSON, as get does (it printed 'key = value' text)", async () => {
    const set = await cli("settings", "set", "retry.maxRetries", "5", "--json");
    expect(set).toEqual({ code: 0, out: "5\n", err: "" });
    const model = await cli("settings", "set", "model", '{"baseUrl":"http://127.0.0.1:1/v1","id":"m"}', "--json");
    expect(JSON.parse(model.out)).toMatchObject({ baseUrl: "http://127.0.0.1:1/v1", id: "m" });
    expect((await cli("settings", "set", "model", "null", "--json")).out).toBe("null\n");
  });

  it("a value that looks like JSON but does not parse: one line naming the JSON error, exit 1", async () => {
    const run = await cli("settings", "set", "model", '{"baseUrl": "http://127.0.0.1:1/v1", "id": x}');
    expect(run.code).toBe(1);
    expect(oneErrorLine(run)).toMatch(/^canopy: error: model: the value is not valid JSON \(.+\)$/);
    expect(JSON.parse((await cli("settings", "get", "model")).out)).toBeNull();
  });

  it("an invalid value: one line, exit 1, nothing changed", async () => {
    const run = await cli("settings", "set", "compaction.reserveTokens", "lots");
    expect(run.code).toBe(1);
    expect(oneErrorLine(run)).toMatch(/^canopy: error: compaction\.reserveTokens: /);
    const fraction = await cli("settings", "set", "compaction.keepRecentTokens", "0.5");
    expect(fraction.code).toBe(1);
    expect(oneErrorLine(fraction)).toMatch(/^canopy: error: compaction\.keepRecentTokens: /);
    expect((await cli("settings", "get", "compaction.reserveTokens")).out).toBe("16384\n");
  });

  it("an unknown key or action: one line, exit 2", async () => {
    const unknown = await cli("settings", "get", "compaction.nope");
    expect(unknown.code).toBe(2);
    expect(oneErrorLine(unknown)).toMatch(/^canopy: unknown setting "compaction\.nope"/);
    // `set` said the same as `get` as a failure (exit 1).
    const unknownSet = await cli("settings", "set", "compaction.nope", "1");
    expect(unknownSet.code).toBe(2);
    expect(oneErrorLine(unknownSet)).toMatch(/^canopy: unknown setting "compaction\.nope" \(known: .*\) \(see `canopy help`\)$/);
    // The agent folders are stored as library.folders but have a command of their own: said so.
    for (const args of [["get", "library.folders"], ["set", "library.folders", '["/tmp/x"]']]) {
      const folders = await cli("settings", ...args);
      expect(folders.code, args.join(" ")).toBe(2);
      expect(oneErrorLine(folders), args.join(" ")).toMatch(
        /^canopy: the agent session folders are read and set with `canopy folders` \(`folders set <dir>…`, `folders reset`\)/,
      );
    }
    const action = await cli("settings", "frob");
    expect(action.code).toBe(2);
    expect(oneErrorLine(action)).toMatch(/^canopy: settings takes "get" or "set", not "frob"/);
    const missing = await cli("settings", "set", "compaction.reserveTokens");
    expect(missing.code).toBe(2);
    expect(oneErrorLine(missing)).toMatch(/^canopy: usage: settings set <key> <value>/);
  });
});
