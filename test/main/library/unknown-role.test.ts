// A `message` entry whose role no agent knows ("alien") is left out of the LLM view, as the
// agent's convertToLlm leaves it out, and reported as one problem naming the entry and the role —
// as an unknown entry type is — at import, after an append, and in none of the fixtures.
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { importPath } from "../../../main/library/import.ts";
import { getSessionDetail, getSessionSummary, loadSessionEntries } from "../../../main/library/load.ts";
import { buildSessionContext } from "../../../core/session/context.ts";
import { convertToLlm } from "../../../core/session/llm-messages.ts";
import { contextTemplatesFrom, loadPromptTemplates } from "../../../prompts/index.ts";
import type { SessionEntry } from "../../../core/session/entries.ts";
import { buildTreeIndex } from "../../../core/session/tree.ts";
import { fixturePath } from "../../helpers/fixtures.ts";
import { fixtureNames, type Library, makeLibrary } from "./helpers.ts";

let lib: Library;
beforeEach(() => {
  lib = makeLibrary();
});
afterEach(() => lib.cleanup());

const header = { type: "session", version: 3, id: "alien", timestamp: "2026-12-01T00:00:00.000Z", cwd: "/w" };
const message = (id: string, parentId: string | null, role: string, text: string) => ({
  type: "message",
  id,
  parentId,
  timestamp: "2026-12-01T00:00:01.000Z",
  message: { role, content: text, timestamp: 1 },
});
const lines = (objects: unknown[]) => `${objects.map((o) => JSON.stringify(o)).join("\n")}\n`;

describe("a message with an unknown role", () => {
  it("the tree index reports it once, naming the entry and the role", () => {
    const entries = [message("u1", null, "user", "hi"), message("x1", "u1", "alien", "beep")] as SessionEntry[];
    const { problems } = buildTreeIndex(entries, { lines: [2, 3] });
    expect(problems).toEqual([
      {
        kind: "unknown_role",
        message: 'Message x1 has the unknown role "alien": kept as is, never sent to the model',
        line: 3,
        entryId: "x1",
      },
    ]);
  });

  it("is reported at import (one problem, on its line) and stays out of the LLM view", () => {
    const file = path.join(lib.dir, "alien.jsonl");
    const objects = [
      header,
      message("u1", null, "user", "hi"),
      message("x1", "u1", "alien", "beep"),
      message("a1", "x1", "assistant", "hello"),
    ];
    fs.writeFileSync(file, lines(objects));
    const report = importPath(lib.db, file);
    expect(report.files[0]?.problems.map((p) => [p.kind, p.entryId, p.line])).toEqual([["unknown_role", "x1", 3]]);
    expect(getSessionSummary(lib.db, "alien").problemCount).toBe(1);
    expect(getSessionDetail(lib.db, "alien").problems.map((p) => p.message)).toEqual([
      'Message x1 has the unknown role "alien": kept as is, never sent to the model',
    ]);
    const context = buildSessionContext(loadSessionEntries(lib.db, "alien"), "a1");
    // The agent's context keeps it; convertToLlm (what the model is sent) skips it, as the agent's does.
    expect(context.messages.map((m) => m.role)).toEqual(["user", "alien", "assistant"]);
    const llm = convertToLlm(context.messages, contextTemplatesFrom(loadPromptTemplates()));
    expect(llm.map((m) => m.role)).toEqual(["user", "assistant"]);
  });

  it("appended to a healthy session's file, it is reported on the re-import", () => {
    const file = path.join(lib.dir, "alien.jsonl");
    const objects = [header, message("u1", null, "user", "hi"), message("a1", "u1", "assistant", "hello")];
    fs.writeFileSync(file, lines(objects));
    importPath(lib.db, file);
    expect(getSessionSummary(lib.db, "alien").problemCount).toBe(0);
    fs.appendFileSync(file, lines([message("x1", "a1", "alien", "beep")]));
    importPath(lib.db, file);
    expect(getSessionDetail(lib.db, "alien").problems.map((p) => [p.kind, p.entryId])).toEqual([
      ["unknown_role", "x1"],
    ]);
  });

  it("no fixture has one: their problems are as before", () => {
    const dir = path.dirname(fixturePath("tree-00.jsonl"));
    const names = fixtureNames(dir);
    expect(names.length).toBeGreaterThanOrEqual(7);
    for (const name of names) {
      const report = importPath(lib.db, path.join(dir, name));
      expect(report.files[0]?.problems ?? [], name).toEqual([]);
    }
  });
});
