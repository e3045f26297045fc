/**
 * The small sessions the pipeline tests compact and navigate, with the texts they contain so
 * tests can spell out the exact prompts the model must receive.
 */
import { SessionFile, sized } from "./harness.ts";

/**
 * Not a split turn with keep 1500: `u1 a1(read src/a.ts) t1 a2(edit src/b.ts) t2 a3 | u2 a4`.
 * The cut is at u2; u1…a3 are summarized.
 */
export const plain = {
  u1: sized("Please fix the parser in src/a.ts", 1000),
  a1: "I will read the file.",
  t1: sized("contents of src/a.ts", 900),
  a2: "Now editing.",
  t2: "ok",
  a3: "The parser is fixed.",
  u2: sized("Now add tests for the parser", 1000),
  a4: sized("I added the tests", 1000),
};

export function plainSession(options: { omp?: boolean; lastUsage?: { input: number; output: number } } = {}) {
  const lastUsage = options.lastUsage;
  return new SessionFile({ omp: options.omp ?? false })
    .user("u1", plain.u1)
    .assistant("a1", plain.a1, { calls: [{ name: "read", args: { path: "src/a.ts" } }] })
    .toolResult("t1", plain.t1, "read", "a1_call0")
    .assistant("a2", plain.a2, {
      calls: [{ name: "edit", args: { path: "src/b.ts", oldText: "x", newText: "y" } }],
    })
    .toolResult("t2", plain.t2, "edit", "a2_call0")
    .assistant("a3", plain.a3)
    .user("u2", plain.u2)
    .assistant("a4", plain.a4, lastUsage ? { usage: lastUsage } : {});
}

/** What the summarizer reads for u1…a3 of the plain session (SPEC §6.1). */
export const plainHistorySerialized = [
  `[User]: ${plain.u1}`,
  `[Assistant]: ${plain.a1}`,
  `[Assistant tool calls]: read(path="src/a.ts")`,
  `[Tool result]: ${plain.t1}`,
  `[Assistant]: ${plain.a2}`,
  `[Assistant tool calls]: edit(path="src/b.ts", oldText="x", newText="y")`,
  `[Tool result]: ${plain.t2}`,
  `[Assistant]: ${plain.a3}`,
].join("\n\n");

export const plainRecentSerialized = `[User]: ${plain.u2}\n\n[Assistant]: ${plain.a4}`;

/** Heuristic size of the plain session's LLM view (ceil(chars / 4) per message). */
export const plainEstimate =
  1000 +
  Math.ceil((plain.a1.length + "read".length + JSON.stringify({ path: "src/a.ts" }).length) / 4) +
  900 +
  Math.ceil(
    (plain.a2.length +
      "edit".length +
      JSON.stringify({ path: "src/b.ts", oldText: "x", newText: "y" }).length) /
      4,
  ) +
  Math.ceil(plain.t2.length / 4) +
  Math.ceil(plain.a3.length / 4) +
  1000 +
  1000;

/** The compaction plan of the plain session with keep 1500, as the API and the CLI give it. */
export const plainPlan = {
  firstKeptEntryId: "u2",
  isSplitTurn: false,
  turnStartEntryId: null,
  tokensBefore: plainEstimate,
  keepRecentTokens: 1500,
  summarizeEntryIds: ["u1", "a1", "t1", "a2", "t2", "a3"],
  turnPrefixEntryIds: [],
  keptEntryIds: ["u2", "a4"],
  previousSummary: false,
  readFiles: ["src/a.ts"],
  modifiedFiles: ["src/b.ts"],
};

/** The text a split turn's summary puts between the history summary and the turn prefix's. */
export const SPLIT_SEPARATOR = "\n\n---\n\n**Turn Context (split turn):**\n\n";

export const plainFileTags =
  "\n\n<read-files>\nsrc/a.ts\n</read-files>\n\n<modified-files>\nsrc/b.ts\n</modified-files>";

/**
 * A split turn with keep 1500: `u1 a1 | u2 a2(read src/c.ts) t2(3000) | a3`. History u1 a1,
 * turn prefix u2 a2 t2, kept a3.
 */
export const split = {
  u1: sized("Build the command line interface", 1000),
  a1: sized("I planned the command line interface", 1000),
  u2: "Read src/c.ts and fix the off-by-one bug.",
  a2: "Reading it.",
  t2: sized("source of src/c.ts", 3000),
  a3: "Found it: the loop bound was wrong; fixed.",
};

/** `id`: a header id of its own, to import it next to another of these sessions. */
export function splitSession(options: { id?: string } = {}) {
  return new SessionFile(options)
    .user("u1", split.u1)
    .assistant("a1", split.a1)
    .user("u2", split.u2)
    .assistant("a2", split.a2, { calls: [{ name: "read", args: { path: "src/c.ts" } }] })
    .toolResult("t2", split.t2, "read", "a2_call0")
    .assistant("a3", split.a3);
}

export const splitHistorySerialized = `[User]: ${split.u1}\n\n[Assistant]: ${split.a1}`;
export const splitPrefixSerialized = [
  `[User]: ${split.u2}`,
  `[Assistant]: ${split.a2}`,
  `[Assistant tool calls]: read(path="src/c.ts")`,
  `[Tool result]: ${split.t2}`,
].join("\n\n");
export const splitRecentSerialized = `[Assistant]: ${split.a3}`;

/**
 * An agent-written compaction on the path, keep 1500:
 * `u1 a1 u2 a2 C1(first kept u2, files) u3 a3 | u4 a4`. D5: the window starts at u2.
 */
export const second = {
  u1: sized("first request", 300),
  a1: sized("first reply", 300),
  u2: sized("second request", 500),
  a2: sized("second reply", 500),
  s1: "S1: the earlier work on the importer.",
  u3: sized("third request", 1000),
  a3: sized("third reply", 1000),
  u4: sized("fourth request", 1000),
  a4: sized("fourth reply", 1000),
};

export function secondCompactionSession() {
  return new SessionFile()
    .user("u1", second.u1)
    .assistant("a1", second.a1)
    .user("u2", second.u2)
    .assistant("a2", second.a2)
    .compaction("c1", {
      summary: second.s1,
      firstKeptEntryId: "u2",
      tokensBefore: 2000,
      details: { readFiles: ["docs/notes.md"], modifiedFiles: ["src/old.ts"] },
    })
    .user("u3", second.u3)
    .assistant("a3", second.a3)
    .user("u4", second.u4)
    .assistant("a4", second.a4);
}

export const secondHistorySerialized = [
  `[User]: ${second.u2}`,
  `[Assistant]: ${second.a2}`,
  `[User]: ${second.u3}`,
  `[Assistant]: ${second.a3}`,
].join("\n\n");

/** `u1 → a1 → u2 → a2 (→ u3 → a3)`: the navigation sessions of SPEC §11 items 51–56. */
export function chainSession(length: 4 | 6, options: { omp?: boolean } = {}) {
  const file = new SessionFile({ omp: options.omp ?? false })
    .user("u1", "First question about the build.")
    .assistant("a1", "First answer.")
    .user("u2", "Second question: read and change files.")
    .assistant("a2", "Second answer.", {
      calls: [
        { name: "read", args: { path: "src/read-me.ts" } },
        { name: "write", args: { path: "src/written.ts", content: "x" } },
      ],
    });
  if (length === 6) file.user("u3", "Third question.").assistant("a3", "Third answer.");
  return file;
}

/**
 * `u1`, then five bash calls a1…a5 whose results t1…t5 are 15,000 tokens each, the first result
 * carrying `details` = `deep` (JSON text nested deeper than a reader may follow): the prune tests'
 * hostile session, as file text.
 */
export function deepDetailsSessionText(deep: string): string {
  const file = new SessionFile().user("u1", "Run the build.");
  for (let i = 1; i <= 5; i++) {
    file
      .assistant(`a${i}`, "", { calls: [{ name: "bash", args: { command: `make ${i}` }, id: `call${i}` }] })
      .toolResult(`t${i}`, sized(`log ${i}`, 15_000), "bash", `call${i}`);
  }
  return file.text().replace('"toolCallId":"call1"', `"details":${deep},"toolCallId":"call1"`);
}
