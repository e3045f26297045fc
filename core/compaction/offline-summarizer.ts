/**
 * The built-in offline summarizer (D16): no model, deterministic (same request → same bytes).
 * It builds a short structured summary from the request's messages — goal from the first user
 * requests, progress and last steps, files touched by tool calls, an open question — merging the
 * sections of a previous summary on updates; plain sentences for the UI's short summary.
 */
import type { LlmMessage } from "../session/entries.ts";
import { addFileOpsFromMessage, createFileOps } from "./file-ops.ts";
import {
  clip,
  embeddedSummary,
  FILE_KINDS,
  type FileKind,
  isFramingText,
  itemsOf,
  lastDistinct,
  listNames,
  messageText,
  parseFileLines,
  parseSections,
  toolCallsOf,
} from "./offline-text.ts";
import type { Summarizer, SummaryRequest, SummaryResponse } from "./types.ts";

const GOAL_CHARS = 400;
const ASK_CHARS = 160;
const STEP_CHARS = 200;
const QUESTION_CHARS = 300;
const MAX_ASKS = 2;
const MAX_STEPS = 3;
const MAX_CALLS = 6;
const MAX_PROGRESS = 8;
const MAX_FILES = 20;
const ALSO_ASKED = "- Also asked: ";
const TOOL_CALLS = "- Tool calls: ";

/** `read ×2, bash ×1` back into counts. */
function parseCounts(text: string): [string, number][] {
  return text.split(", ").flatMap((part) => {
    const match = /^(.+) ×(\d+)$/.exec(part);
    return match?.[1] === undefined ? [] : [[match[1], Number(match[2])] as [string, number]];
  });
}

type Files = Record<FileKind, string[]>;

interface Analysis {
  /** User texts that are requests (not summaries or file mentions), oldest first. */
  requests: string[];
  /** Summaries found inside summary-context messages. */
  embedded: string[];
  replies: string[];
  calls: string[];
  callCounts: Map<string, number>;
  files: Files;
  question: string | undefined;
}

function mergeFiles(...sources: Files[]): Files {
  const sets = { Read: new Set<string>(), Edited: new Set<string>(), Written: new Set<string>() };
  for (const source of sources)
    for (const kind of FILE_KINDS) for (const p of source[kind]) sets[kind].add(p);
  const modified = new Set([...sets.Edited, ...sets.Written]);
  return {
    Read: [...sets.Read].filter((p) => !modified.has(p)).sort(),
    Edited: [...sets.Edited].sort(),
    Written: [...sets.Written].sort(),
  };
}

function trailingQuestion(
  messages: readonly LlmMessage[],
  firstRequest: LlmMessage | undefined,
): string | undefined {
  const last = messages.at(-1);
  if (last === undefined) return undefined;
  const text = messageText(last).trim();
  if (last.role === "user" && text !== "" && !isFramingText(text) && last !== firstRequest) {
    return clip(text, QUESTION_CHARS);
  }
  if (last.role === "assistant" && text.endsWith("?")) {
    const paragraph = text.split(/\n\s*\n/).at(-1) ?? text;
    return `The assistant asked: ${clip(paragraph, QUESTION_CHARS)}`;
  }
  return undefined;
}

function analyze(messages: readonly LlmMessage[]): Analysis {
  const ops = createFileOps();
  const a: Analysis = {
    requests: [],
    embedded: [],
    replies: [],
    calls: [],
    callCounts: new Map(),
    files: { Read: [], Edited: [], Written: [] },
    question: undefined,
  };
  let firstRequest: LlmMessage | undefined;
  for (const message of messages) {
    const text = messageText(message).trim();
    if (message.role === "user") {
      const inner = embeddedSummary(text);
      if (inner !== undefined) a.embedded.push(inner);
      else if (text !== "" && !isFramingText(text)) {
        firstRequest ??= message;
        a.requests.push(text);
      }
    } else if (message.role === "assistant") {
      if (text !== "") a.replies.push(text);
      for (const call of toolCallsOf(message)) {
        a.calls.push(call);
        const name = call.replace(/\(.*$/s, "");
        a.callCounts.set(name, (a.callCounts.get(name) ?? 0) + 1);
      }
      addFileOpsFromMessage(ops, message);
    }
  }
  a.files = mergeFiles({ Read: [...ops.read], Edited: [...ops.edited], Written: [...ops.written] });
  a.question = trailingQuestion(messages, firstRequest);
  return a;
}

function section(title: string, lines: readonly string[]): string | undefined {
  return lines.length === 0 ? undefined : `## ${title}\n${lines.join("\n")}`;
}

function fileLines(files: Files): string[] {
  return FILE_KINDS.filter((kind) => files[kind].length > 0).map(
    (kind) => `- ${kind}: ${listNames(files[kind], MAX_FILES)}`,
  );
}

function stepLines(a: Analysis): string[] {
  const lines = a.replies.slice(-MAX_STEPS).map((reply) => `- ${clip(reply, STEP_CHARS)}`);
  if (a.calls.length > 0) lines.push(`- Called: ${lastDistinct(a.calls, MAX_CALLS).join(", ")}`);
  return lines;
}

function join(parts: readonly (string | undefined)[], fallback: string): string {
  const present = parts.filter((part): part is string => part !== undefined);
  return present.length > 0 ? present.join("\n\n") : fallback;
}

/** Goal, Progress, Last steps, Files, Open question; earlier summaries merged in. */
function structuredSummary(a: Analysis, previous: string | undefined): string {
  const earlier = [previous, ...a.embedded].filter((s): s is string => !!s);
  const priors = earlier.map(parseSections);
  const priorGoal = priors.map((p) => p.get("goal") ?? []).find((lines) => lines.length > 0) ?? [];
  const [first, ...later] = a.requests;
  const base = priorGoal
    .filter((line) => !line.startsWith(ALSO_ASKED))
    .slice(0, 4)
    .map((line) => clip(line, GOAL_CHARS));
  if (base.length === 0 && first !== undefined) base.push(clip(first, GOAL_CHARS));
  const asks = [
    ...priorGoal.filter((line) => line.startsWith(ALSO_ASKED)).map((line) => line.slice(ALSO_ASKED.length)),
    ...(priorGoal.length > 0 ? a.requests : later).map((text) => clip(text, ASK_CHARS)),
  ];
  const goal = [...base, ...lastDistinct(asks, MAX_ASKS).map((ask) => ALSO_ASKED + ask)];

  // Earlier "Tool calls" tallies are summed into one line rather than repeated.
  const counts = new Map<string, number>();
  const progress: string[] = [];
  // A summary without sections (a model's prose, a hook's) cannot be merged by section: it is
  // carried whole, clipped, rather than dropped.
  for (const text of earlier.filter((_, i) => priors[i]?.size === 0 && earlier[i]?.trim() !== ""))
    progress.push(`- ${clip(text, GOAL_CHARS)}`);
  for (const item of priors.flatMap((p) => itemsOf(p, ["progress", "last steps"]))) {
    if (!item.startsWith(TOOL_CALLS)) progress.push(clip(item, STEP_CHARS));
    else
      for (const [name, n] of parseCounts(item.slice(TOOL_CALLS.length)))
        counts.set(name, (counts.get(name) ?? 0) + n);
  }
  for (const [name, n] of a.callCounts) counts.set(name, (counts.get(name) ?? 0) + n);
  const tally = [...counts].map(([name, n]) => `${name} ×${n}`).join(", ");
  const progressLines = lastDistinct(progress, counts.size > 0 ? MAX_PROGRESS - 1 : MAX_PROGRESS);
  if (counts.size > 0) progressLines.push(TOOL_CALLS + tally);
  const files = mergeFiles(a.files, ...priors.map((p) => parseFileLines(p.get("files") ?? [])));
  const priorQuestion = priors[0]?.get("open question");
  const question =
    a.question ?? (a.requests.length + a.replies.length === 0 ? priorQuestion?.join("\n") : undefined);
  return join(
    [
      section("Goal", goal),
      section("Progress", progressLines),
      section("Last steps", stepLines(a)),
      section("Files", fileLines(files)),
      section("Open question", question === undefined ? [] : [question]),
    ],
    "No conversation to summarize.",
  );
}

function turnPrefixSummary(a: Analysis): string {
  const request = a.requests[0];
  return join(
    [
      section("Original Request", request === undefined ? [] : [clip(request, GOAL_CHARS)]),
      section("Early Progress", stepLines(a)),
      section("Context for Suffix", fileLines(a.files)),
    ],
    "No earlier part of this turn to summarize.",
  );
}

function sentence(text: string): string {
  return /[.!?…]$/.test(text) ? text : `${text}.`;
}

/** One or two first-person sentences for the UI. */
function shortSummary(a: Analysis, previous: string | undefined): string {
  const prior = previous ? parseSections(previous) : undefined;
  // The session's goal (from the history summary) describes the work better than the latest ask.
  const priorGoal = prior?.get("goal")?.find((line) => !line.startsWith("- "));
  const goal = priorGoal ?? a.requests[0];
  const files = mergeFiles(a.files, parseFileLines(prior?.get("files") ?? []));
  const modified = [...new Set([...files.Edited, ...files.Written])].sort();
  const sentences: string[] = [];
  if (goal !== undefined) sentences.push(sentence(`I worked on: ${clip(goal, 160)}`));
  if (modified.length > 0) sentences.push(sentence(`I changed ${listNames(modified, 3)}`));
  else if (files.Read.length > 0) sentences.push(sentence(`I looked at ${listNames(files.Read, 3)}`));
  else if (a.calls.length > 0)
    sentences.push(`I made ${a.calls.length} tool call${a.calls.length === 1 ? "" : "s"}.`);
  return sentences.length > 0 ? sentences.join(" ") : "Nothing has been done yet.";
}

function summarizeOffline(request: SummaryRequest): string {
  const a = analyze(request.messages);
  switch (request.purpose) {
    case "short":
      return shortSummary(a, request.previousSummary);
    case "turn-prefix":
      return turnPrefixSummary(a);
    default:
      return structuredSummary(a, request.previousSummary);
  }
}

/** The default summarizer when no model is configured: every feature works offline (D16). */
export function createOfflineSummarizer(): Summarizer {
  return {
    kind: "offline",
    label: "Built-in offline summarizer",
    contextWindow: 0,
    async summarize(request: SummaryRequest): Promise<SummaryResponse> {
      if (request.signal?.aborted) return { text: "", stopReason: "aborted" };
      const full = summarizeOffline(request);
      // Stay within the requested budget (4 chars per token, as the estimates assume).
      const limit = request.maxTokens * 4;
      const text = request.maxTokens > 0 && full.length > limit ? full.slice(0, limit) : full;
      request.onText?.(text);
      return { text, stopReason: text === full ? "stop" : "length" };
    },
  };
}
