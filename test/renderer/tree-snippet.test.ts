// The tree's snippets as shown: session:tree sends 120 characters and a `cut` flag; the canvas,
// its aria-label and the branch dialog add the "…", and the composer's "Answering:" line reads
// the message from the leaf's LLM view (200 characters, as before) when it is on screen.
import { describe, expect, it } from "vitest";
import type { ContextView, TreeNodeDto } from "../../core/api/dto.ts";
import { flatten } from "../../core/session/describe.ts";
import { HOLE_ABOVE_CHARS, holeLongTexts } from "../../core/text/text-hole.ts";
import {
  answeringText,
  entryFullText,
  textFromContext,
} from "../../renderer/src/features/tree/entry-text.ts";
import { createFlowCache, toFlowNodes } from "../../renderer/src/features/tree/flow.ts";
import { layoutTree } from "../../renderer/src/features/tree/layout.ts";
import { shownSnippet } from "../../renderer/src/features/tree/snippet.ts";
import { TreeBuilder } from "./tree-builders.ts";

const HUGE = `Start. ${"A long line of the log.\n".repeat(HOLE_ABOVE_CHARS / 10)}END`;
const LONG = `Please refactor the parser. ${"The lexer keeps every token in memory. ".repeat(10)}END`;

function view(leafId: string, content: unknown): ContextView {
  return {
    sessionId: "s",
    leafId,
    thinkingLevel: "off",
    thinkingLevelOnPath: false,
    models: {},
    model: null,
    messages: [{ role: "user", content, timestamp: 0 } as ContextView["messages"][number]],
    messageEntryIds: [leafId],
    messageTokens: [10],
    messageKinds: ["user"],
    estimatedTokens: 10,
    measuredTokens: null,
    compactionId: null,
    firstKeptEntryId: null,
    request: { target: null, blockImages: false, changes: [[]], added: [], messageCount: 1 },
  };
}

describe("tree snippets as shown", () => {
  it("adds the ellipsis to a cut snippet, on the canvas node and where it is shortened", () => {
    const node = { text: LONG.slice(0, 120), cut: true };
    expect(shownSnippet(node)).toBe(`${LONG.slice(0, 120)}…`);
    expect(shownSnippet({ text: "short" })).toBe("short");
    expect(shownSnippet(node, 80)).toBe(`${LONG.slice(0, 79)}…`);
    expect(shownSnippet({ text: "short" }, 80)).toBe("short");

    const b = new TreeBuilder();
    b.add("u1", null, "user", { text: LONG.slice(0, 120), cut: true });
    b.add("a1", "u1", "assistant", { text: "Done." });
    const layout = layoutTree(b.nodes, { filter: "all", viewLeafId: "a1", collapseChains: false });
    const data = new Map(
      toFlowNodes(layout, createFlowCache()).map((flow) => [flow.id, flow.data as { text?: string }]),
    );
    expect(data.get("u1")?.text).toBe(`${LONG.slice(0, 120)}…`);
    expect(data.get("a1")?.text).toBe("Done.");
  });

  it("reads the whole message from its own LLM view only, and answers with its first 200 characters", () => {
    const node: Pick<TreeNodeDto, "id" | "text" | "cut"> = { id: "u1", text: LONG.slice(0, 120), cut: true };
    expect(textFromContext(node, view("u1", LONG))).toBe(LONG);
    expect(
      textFromContext(
        node,
        view("u1", [{ type: "text", text: "a" }, { type: "image" }, { type: "text", text: "b" }]),
      ),
    ).toBe("a\nb");
    expect(textFromContext(node, view("other", LONG))).toBeNull();
    expect(textFromContext(node, null)).toBeNull();
    expect(answeringText(node, view("u1", LONG))).toBe(`${LONG.slice(0, 199)}…`);
    expect(answeringText(node, null)).toBe(`${LONG.slice(0, 120)}…`);
  });
});

describe("the whole text for the editor", () => {
  it("asks for the entry's own view only when the one on screen is another entry's", async () => {
    const asked: string[] = [];
    const fetchView = async (leafId: string) => {
      asked.push(leafId);
      return view(leafId, LONG);
    };
    expect(await entryFullText({ id: "u1" }, view("u1", "on screen"), fetchView)).toBe("on screen");
    expect(asked).toEqual([]);
    expect(await entryFullText({ id: "u1" }, view("a1", "other"), fetchView)).toBe(LONG);
    expect(await entryFullText({ id: "u1" }, null, fetchView)).toBe(LONG);
    expect(asked).toEqual(["u1", "u1"]);
  });

  it("asks for the whole view when the one on screen has the text without its middle", async () => {
    const holed = holeLongTexts([{ role: "user", content: HUGE, timestamp: 0 }]);
    const onScreen = { ...view("u1", holed.messages[0]?.content), textHoles: holed.holes };
    const asked: string[] = [];
    const fetchView = async (leafId: string) => {
      asked.push(leafId);
      return view(leafId, HUGE);
    };
    expect(await entryFullText({ id: "u1" }, onScreen, fetchView)).toBe(HUGE);
    expect(asked).toEqual(["u1"]);
    // Its beginning is enough for the composer's "Answering:" line.
    expect(answeringText({ id: "u1", text: "x", cut: true }, onScreen)).toBe(flatten(HUGE, 200));
  });
});
