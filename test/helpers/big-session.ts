/**
 * Session files with one very large text, for the tests and the bench of how long a session takes
 * to open: a compaction whose summary is `chars` long (markdown, as a summary endpoint returns it)
 * and a tool result of that size (log lines). Each text ends with `BIG_TEXT_END_MARKER`.
 */

/** The last line of every big text: hidden while the text is shown cut. */
export const BIG_TEXT_END_MARKER = "END-OF-THE-BIG-TEXT-7f3a";

const WORDS = [
  "alpha",
  "beta",
  "gamma",
  "delta",
  "render",
  "parser",
  "cache",
  "token",
  "déjà",
  "naïve",
  "中文",
  "🙂",
];

/** Markdown of about `chars` UTF-16 code units: headings, bullets, paragraphs, code blocks. */
export function bigMarkdown(chars: number): string {
  const parts: string[] = [];
  let length = 0;
  for (let section = 0; length < chars; section++) {
    const lines = [
      `## Section ${section}`,
      "",
      `- item ${section}.1: ${WORDS[section % WORDS.length]} **bold** and \`code\``,
      `- item ${section}.2: see [docs](https://example.com/${section})`,
      "",
      Array.from({ length: 30 }, (_, i) => WORDS[(section + i) % WORDS.length]).join(" "),
      "",
      "```ts",
      `const value${section} = ${section};`,
      "```",
      "",
    ];
    const text = lines.join("\n");
    parts.push(text);
    length += text.length + 1;
  }
  parts.push(BIG_TEXT_END_MARKER);
  return parts.join("\n");
}

/** Log lines of about `chars` UTF-16 code units. */
export function bigLog(chars: number): string {
  const parts: string[] = [];
  let length = 0;
  for (let line = 0; length < chars; line++) {
    const text = `${String(line).padStart(8, "0")} INFO worker-${line % 7} processed ${WORDS[line % WORDS.length]} in ${line % 97} ms`;
    parts.push(text);
    length += text.length + 1;
  }
  parts.push(BIG_TEXT_END_MARKER);
  return parts.join("\n");
}

const T = "2026-12-03T10:00:00.000Z";
const header = (id: string) => ({ type: "session", version: 3, id, timestamp: T, cwd: "/home/dev/big" });
const message = (id: string, parentId: string | null, body: object) => ({
  type: "message",
  id,
  parentId,
  timestamp: T,
  message: { ...body, timestamp: 1_765_000_000_000 },
});
const assistant = (content: object[], stopReason = "stop") => ({
  role: "assistant",
  content,
  api: "anthropic-messages",
  provider: "anthropic",
  model: "claude-x",
  usage: {
    input: 100,
    output: 20,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 120,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  },
  stopReason,
});
const user = (text: string) => ({ role: "user", content: [{ type: "text", text }] });

const jsonl = (entries: object[]) => `${entries.map((entry) => JSON.stringify(entry)).join("\n")}\n`;

/** A session whose view leaf sits after a compaction with a summary of `chars` characters. */
export function bigSummarySession(sessionId: string, chars: number): string {
  return jsonl([
    header(sessionId),
    message("a0000001", null, user("Start the big job.")),
    message("a0000002", "a0000001", assistant([{ type: "text", text: "Started." }])),
    message("a0000003", "a0000002", user("Keep going.")),
    message("a0000004", "a0000003", assistant([{ type: "text", text: "Going on." }])),
    {
      type: "compaction",
      id: "a0000005",
      parentId: "a0000004",
      timestamp: T,
      summary: bigMarkdown(chars),
      firstKeptEntryId: "a0000003",
      tokensBefore: 200,
    },
    message("a0000006", "a0000005", user("What next?")),
    message("a0000007", "a0000006", assistant([{ type: "text", text: "**Done** with the big job." }])),
  ]);
}

/** A session whose view leaf sits after a tool result of `chars` characters. */
export function bigToolResultSession(sessionId: string, chars: number): string {
  return jsonl([
    header(sessionId),
    message("b0000001", null, user("Read the big log.")),
    message(
      "b0000002",
      "b0000001",
      assistant(
        [{ type: "toolCall", id: "call_big", name: "read", arguments: { path: "big.log" } }],
        "toolUse",
      ),
    ),
    message("b0000003", "b0000002", {
      role: "toolResult",
      toolCallId: "call_big",
      toolName: "read",
      content: [{ type: "text", text: bigLog(chars) }],
      isError: false,
    }),
    message("b0000004", "b0000003", assistant([{ type: "text", text: "The log is long." }])),
  ]);
}
