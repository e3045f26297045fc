// Very long texts sent to the page without their middle (core/text/text-hole.ts): the LLM view
// must show the same as for the whole text — the same cut beginning, the same hidden length,
// bytes and lines, the same collapsed body and hidden count — for summaries, tool output,
// thinking and prose, with bidi controls, emoji on the boundaries and line breaks anywhere.
import { describe, expect, it } from "vitest";
import type { LlmMessage } from "../../core/session/entries.ts";
import { countLines, cutForDisplay, DISPLAY_CUT_CHARS, utf8Length } from "../../core/text/display-cut.ts";
import {
  HOLE_ABOVE_CHARS,
  HOLE_HEAD_CHARS,
  HOLE_TAIL_CHARS,
  holeLongTexts,
  wholeBytes,
  wholeLength,
  wholeLines,
} from "../../core/text/text-hole.ts";
import {
  isLong,
  limitParts,
  type MessagePart,
  messageParts,
} from "../../renderer/src/features/llm-view/message-parts.ts";

/** A deterministic text of `chars` units from `alphabet` pieces, with line breaks. */
function textOf(chars: number, seed: number, pieces: readonly string[]): string {
  const out: string[] = [];
  let length = 0;
  let state = seed;
  while (length < chars) {
    state = (state * 1103515245 + 12345) % 2147483648;
    const piece = pieces[state % pieces.length] ?? "x";
    out.push(piece);
    length += piece.length;
  }
  return out.join("");
}

const PIECES = ["word ", "\n", "🙂", "déjà ", "\u202e", "\u2066", "中文", "**b** ", "\n\n", "`c` "];
const SUMMARY_FRAME = (summary: string) => `You are picking up a task.\n\n<summary>\n${summary}\n</summary>`;

/** The display figures LongText shows for a text part: what is cut, and how much is hidden. */
function figures(part: MessagePart) {
  const text = part.kind === "summary" ? part.summary : "text" in part ? part.text : "";
  const hole = part.kind === "image" || part.kind === "toolCall" ? undefined : part.hole;
  const cut = cutForDisplay(text, DISPLAY_CUT_CHARS);
  return {
    kind: part.kind,
    shown: cut.shown,
    hiddenChars: wholeLength(text, hole) - cut.shown.length,
    bytes: wholeBytes(text, hole),
    lines: wholeLines(text, hole),
  };
}

function wholeFigures(part: MessagePart) {
  const text = part.kind === "summary" ? part.summary : "text" in part ? part.text : "";
  const cut = cutForDisplay(text, DISPLAY_CUT_CHARS);
  return {
    kind: part.kind,
    shown: cut.shown,
    hiddenChars: cut.hiddenChars,
    bytes: utf8Length(text),
    lines: countLines(text),
  };
}

function expectSameView(messages: LlmMessage[]) {
  const holed = holeLongTexts(messages);
  expect(holed.holes.length).toBeGreaterThan(0);
  holed.messages.forEach((message, index) => {
    const holes = holed.holes.filter((hole) => hole.messageIndex === index);
    // The first message is a compaction summary (drawn as one only when its entry says so).
    const parts = messageParts(message, holes, undefined, index === 0);
    const whole = messageParts(messages[index] as LlmMessage, undefined, undefined, index === 0);
    expect(parts.map(figures)).toEqual(whole.map(wholeFigures));
    expect(isLong(parts)).toBe(isLong(whole));
    expect(limitParts(parts, 4000)).toEqual(limitParts(whole, 4000));
  });
  // What is sent is small: the beginning and the end of each text.
  const sent = JSON.stringify(holed.messages).length;
  expect(sent).toBeLessThan(holed.holes.length * (HOLE_HEAD_CHARS + HOLE_TAIL_CHARS) * 2 + 10_000);
}

describe("texts sent without their middle", () => {
  it("leave short texts alone (the same message objects)", () => {
    const messages: LlmMessage[] = [
      { role: "user", content: "short", timestamp: 0 },
      { role: "user", content: [{ type: "text", text: "x".repeat(HOLE_ABOVE_CHARS) }], timestamp: 0 },
    ];
    const holed = holeLongTexts(messages);
    expect(holed.holes).toEqual([]);
    expect(holed.messages[0]).toBe(messages[0]);
    expect(holed.messages[1]).toBe(messages[1]);
  });

  for (const seed of [1, 2, 7]) {
    it(`show a summary, tool output, thinking and prose as the whole texts do (seed ${seed})`, () => {
      const big = (n: number) => textOf(HOLE_ABOVE_CHARS + 50_000 * n + seed, seed * 31 + n, PIECES);
      expectSameView([
        { role: "user", content: SUMMARY_FRAME(big(1)), timestamp: 0 },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: big(2) },
            { type: "text", text: big(3) },
            { type: "toolCall", id: "c1", name: "read", arguments: { path: "x" } },
          ],
          provider: "p",
          model: "m",
          timestamp: 0,
        },
        {
          role: "toolResult",
          toolCallId: "c1",
          toolName: "read",
          content: [{ type: "text", text: `${big(4)}\n` }],
          isError: false,
          timestamp: 0,
        },
        { role: "user", content: [{ type: "text", text: big(5) }], timestamp: 0 },
      ]);
    });
  }

  it("pass over what a hand-edited message holds where blocks belong (null blocks, no array)", () => {
    const long = "x".repeat(HOLE_ABOVE_CHARS + 10);
    const messages = [
      { role: "user", content: [null, { type: "text", text: long }], timestamp: 0 },
      { role: "toolResult", toolCallId: "c", toolName: "read", content: null, isError: false, timestamp: 0 },
    ] as unknown as LlmMessage[];
    const holed = holeLongTexts(messages);
    expect(holed.holes.map((hole) => [hole.messageIndex, hole.block])).toEqual([[0, 1]]);
    expect(holed.messages[1]).toBe(messages[1]);
  });

  it("never split an emoji at either end of the hole", () => {
    const text = "🙂".repeat(HOLE_ABOVE_CHARS);
    const holed = holeLongTexts([{ role: "user", content: text, timestamp: 0 }]);
    const sent = holed.messages[0]?.content as string;
    expect(sent.length % 2).toBe(0);
    expect(sent.match(/🙂/gu)?.length).toBe(sent.length / 2);
    expect(holed.holes[0]?.hole.bytes).toBe(utf8Length(text) - utf8Length(sent));
  });
});
