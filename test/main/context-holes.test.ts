// context:get for the page (holeLongTexts): a session with a 2 MB tool result and a 2 MB
// compaction summary answers with their beginnings and ends only, says where the middles were,
// and keeps every figure of the whole texts (token estimates, the request plan); asked without
// the flag (the CLI, a diff, "Show all"), the texts are whole.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ContextView } from "../../core/api/dto.ts";
import type { LlmMessage } from "../../core/session/entries.ts";
import { HOLE_HEAD_CHARS, HOLE_TAIL_CHARS } from "../../core/text/text-hole.ts";
import { type Api, createApi } from "../../main/api/dispatch.ts";
import { createAppContext } from "../../main/app-context.ts";
import { bigSummarySession, bigToolResultSession } from "../helpers/big-session.ts";

const MB = 1024 * 1024;
let dir: string;
let api: Api;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), "canopy-holes-"));
  api = createApi(
    createAppContext({
      dbPath: path.join(dir, "library.db"),
      seedDemo: false,
      loadUserHooks: false,
      env: {},
    }),
  );
  for (const [name, text] of [
    ["summary", bigSummarySession("holes-summary", 2 * MB)],
    ["tool", bigToolResultSession("holes-tool", 2 * MB)],
  ] as const) {
    writeFileSync(path.join(dir, `${name}.jsonl`), text);
    const imported = await api.call("library:import", { path: path.join(dir, `${name}.jsonl`) });
    expect(imported.ok).toBe(true);
  }
});

afterAll(() => {
  api.ctx.db.close();
  rmSync(dir, { recursive: true, force: true });
});

async function view(sessionId: string, holeLongTexts?: boolean): Promise<ContextView> {
  const result = await api.call("context:get", {
    sessionId,
    agentMessages: false,
    ...(holeLongTexts === undefined ? {} : { holeLongTexts }),
  });
  if (!result.ok) throw new Error(result.error.message);
  return result.value;
}

const textOf = (message: LlmMessage | undefined): string => {
  const content = message?.content;
  if (typeof content === "string") return content;
  const block = content?.[0];
  return block && "text" in block && typeof block.text === "string" ? block.text : "";
};

describe("context:get with holeLongTexts", () => {
  for (const [name, sessionId, index] of [
    ["compaction summary", "holes-summary", 0],
    ["tool result", "holes-tool", 2],
  ] as const) {
    it(`sends a 2 MB ${name} as its beginning and end, with the figures of the whole`, async () => {
      const whole = await view(sessionId);
      const holed = await view(sessionId, true);
      expect(whole.textHoles).toBeUndefined();
      expect(JSON.stringify(whole).length).toBeGreaterThan(2 * MB);
      // The answer for opening the session no longer carries the whole text.
      expect(JSON.stringify(holed).length).toBeLessThan(HOLE_HEAD_CHARS + HOLE_TAIL_CHARS + 50_000);
      expect(holed.textHoles).toHaveLength(1);
      const [{ messageIndex, block, hole }] = holed.textHoles as [NonNullable<ContextView["textHoles"]>[0]];
      expect(messageIndex).toBe(index);
      const full = textOf(whole.messages[index]);
      const sent = textOf(holed.messages[index]);
      expect(typeof holed.messages[index]?.content === "string").toBe(block === null);
      // Beginning + end = the whole text without the middle the hole describes.
      expect(sent.slice(0, hole.at)).toBe(full.slice(0, hole.at));
      expect(sent.slice(hole.at)).toBe(full.slice(hole.at + hole.chars));
      expect(hole.chars).toBe(full.length - sent.length);
      // What the view counts is still the whole text's.
      const { messages: _a, textHoles: _b, ...wholeFigures } = whole;
      const { messages: _c, textHoles: _d, ...holedFigures } = holed;
      expect(holedFigures).toEqual(wholeFigures);
      // Other messages are sent as they are.
      holed.messages.forEach((message, i) => {
        if (i !== index) expect(message).toEqual(whole.messages[i]);
      });
    });
  }
});
