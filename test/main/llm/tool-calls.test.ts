// Tool calls of a chat-completions reply as the agents' toolCall blocks: whole calls of a JSON
// reply, streamed fragments joined by index (interleaved too), servers that send no index,
// arguments that are not a JSON object kept verbatim, nameless calls left out.
import { describe, expect, it } from "vitest";
import { ToolCallCollector, toolNames } from "../../../main/llm/tool-calls.ts";

const fn = (name: string | undefined, args: string | undefined) => ({
  ...(name === undefined ? {} : { name }),
  ...(args === undefined ? {} : { arguments: args }),
});

describe("ToolCallCollector", () => {
  it("takes the whole calls of a JSON reply, in order", () => {
    const calls = new ToolCallCollector();
    calls.add(
      {
        tool_calls: [
          { id: "call_a", type: "function", function: fn("read", '{"path":"a.ts"}') },
          { id: "call_b", type: "function", function: fn("bash", '{"command":"ls"}') },
        ],
      },
      false,
    );
    expect(calls.blocks()).toEqual([
      { type: "toolCall", id: "call_a", name: "read", arguments: { path: "a.ts" } },
      { type: "toolCall", id: "call_b", name: "bash", arguments: { command: "ls" } },
    ]);
  });

  it("joins streamed fragments by index, also when two calls interleave", () => {
    const calls = new ToolCallCollector();
    const delta = (index: number, id: string | undefined, name: string | undefined, args: string) => ({
      tool_calls: [{ index, ...(id ? { id, type: "function" } : {}), function: fn(name, args) }],
    });
    for (const piece of [
      delta(0, "call_1", "read", ""),
      delta(0, undefined, undefined, '{"pa'),
      delta(1, "call_2", "grep", '{"pattern"'),
      delta(0, undefined, undefined, 'th":"src/x.ts"}'),
      delta(1, undefined, undefined, ':"TODO"}'),
    ]) {
      calls.add(piece, true);
    }
    expect(calls.blocks()).toEqual([
      { type: "toolCall", id: "call_1", name: "read", arguments: { path: "src/x.ts" } },
      { type: "toolCall", id: "call_2", name: "grep", arguments: { pattern: "TODO" } },
    ]);
  });

  it("follows servers that stream without an index: a new id starts a call", () => {
    const calls = new ToolCallCollector();
    calls.add({ tool_calls: [{ id: "x", function: fn("read", '{"path":') }] }, true);
    calls.add({ tool_calls: [{ function: fn("read", '"a"}') }] }, true);
    calls.add({ tool_calls: [{ id: "y", function: fn("ls", "") }] }, true);
    expect(calls.blocks()).toEqual([
      { type: "toolCall", id: "x", name: "read", arguments: { path: "a" } },
      { type: "toolCall", id: "y", name: "ls", arguments: {} },
    ]);
  });

  it("keeps arguments that are not a JSON object beside an empty object, gives missing ids one, drops nameless calls", () => {
    const calls = new ToolCallCollector();
    calls.add(
      {
        tool_calls: [
          { function: fn("bash", '{"command":"ls"') },
          { id: "z", function: fn("echo", "[1,2]") },
          { id: "nameless", function: fn(undefined, '{"a":1}') },
        ],
      },
      false,
    );
    expect(calls.blocks()).toEqual([
      { type: "toolCall", id: "call_0", name: "bash", arguments: {}, rawArguments: '{"command":"ls"' },
      { type: "toolCall", id: "z", name: "echo", arguments: {}, rawArguments: "[1,2]" },
    ]);
    expect(toolNames(calls.blocks())).toEqual(["bash", "echo"]);
  });

  it("ignores a message or delta without tool calls", () => {
    const calls = new ToolCallCollector();
    calls.add({ content: "hi" }, true);
    calls.add(null, false);
    calls.add({ tool_calls: null }, true);
    expect(calls.blocks()).toEqual([]);
  });
});
