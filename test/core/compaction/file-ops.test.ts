// File-operation tracking: SPEC §6.7, behaviour 46.
import { describe, expect, it } from "vitest";
import {
  addFileOpsFromMessage,
  computeFileLists,
  createFileOps,
  seedFileOpsFromDetails,
} from "../../../core/compaction/file-ops.ts";
import type { AgentMessage } from "../../../core/session/entries.ts";
import { assistant, toolResult, user } from "../_builders.ts";
import { call } from "./_path.ts";

function withCalls(...calls: ReturnType<typeof call>[]): AgentMessage {
  return assistant("", { content: calls });
}

describe("file operations (SPEC §6.7)", () => {
  it("B46: read /a, write /a, edit /b, read /c → readFiles [/c], modifiedFiles [/a, /b]", () => {
    const ops = createFileOps();
    addFileOpsFromMessage(
      ops,
      withCalls(call("read", { path: "/a" }), call("write", { path: "/a", content: "x" })),
    );
    addFileOpsFromMessage(ops, withCalls(call("edit", { path: "/b" }), call("read", { path: "/c" })));
    expect(computeFileLists(ops)).toEqual({ readFiles: ["/c"], modifiedFiles: ["/a", "/b"] });
  });

  it("ignores other tools, other argument names, empty or non-string paths and non-assistant messages", () => {
    const ops = createFileOps();
    addFileOpsFromMessage(
      ops,
      withCalls(
        call("bash", { path: "/x" }),
        call("read", { file_path: "/y" }),
        call("read", { path: "" }),
        call("edit", { path: 42 }),
      ),
    );
    addFileOpsFromMessage(ops, user("read /z"));
    addFileOpsFromMessage(ops, toolResult("content", { toolName: "read", details: { path: "/t" } }));
    expect(computeFileLists(ops)).toEqual({ readFiles: [], modifiedFiles: [] });
  });

  it("sorts in UTF-16 code-unit order (default JS sort)", () => {
    const ops = createFileOps();
    addFileOpsFromMessage(
      ops,
      withCalls(call("read", { path: "b" }), call("read", { path: "B" }), call("read", { path: "a" })),
    );
    expect(computeFileLists(ops).readFiles).toEqual(["B", "a", "b"]);
  });

  it("seeds details.readFiles into read and details.modifiedFiles into edited; junk is ignored", () => {
    const ops = createFileOps();
    seedFileOpsFromDetails(ops, { readFiles: ["/r", 3, "/m"], modifiedFiles: ["/m"] });
    seedFileOpsFromDetails(ops, "not details");
    seedFileOpsFromDetails(ops, { readFiles: "nope" });
    expect([...ops.read]).toEqual(["/r", "/m"]);
    expect([...ops.edited]).toEqual(["/m"]);
    expect(computeFileLists(ops)).toEqual({ readFiles: ["/r"], modifiedFiles: ["/m"] });
  });
});
