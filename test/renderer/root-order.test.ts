// The canvas and `canopy show` draw a session in the same order, the file's (SPEC §2.3): roots
// in file order (the view leaf's first), a parent's children by time — for a real imported file
// whose roots were stamped out of line order, the canvas layout of its session:tree and the
// lines `show` prints.
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { importPath } from "../../main/library/import.ts";
import { loadSessionTree } from "../../main/library/tree-nodes.ts";
import { layoutTree, ROOTS_KEY } from "../../renderer/src/features/tree/layout.ts";
import { runCliCaptured } from "../helpers/cli.ts";
import { type Library, makeLibrary } from "../main/library/helpers.ts";

process.env.CANOPY_NO_DEMO = "1";

let lib: Library;
beforeEach(() => {
  lib = makeLibrary();
});
afterEach(() => lib.cleanup());

const entry = (id: string, parentId: string | null, second: number) =>
  JSON.stringify({
    type: "message",
    id,
    parentId,
    timestamp: `2026-03-01T10:00:${String(second).padStart(2, "0")}.000Z`,
    message: { role: "user", content: [{ type: "text", text: id }], timestamp: second },
  });

describe("root order", () => {
  it("the canvas puts roots in file order, as `canopy show` does, and children by time in both", async () => {
    const file = path.join(lib.dir, "roots.jsonl");
    const lines = [
      JSON.stringify({
        type: "session",
        version: 3,
        id: "roots",
        timestamp: "2026-03-01T10:00:00.000Z",
        cwd: "/w",
      }),
      entry("first", null, 30),
      entry("second", null, 50),
      entry("later", "second", 45),
      entry("sooner", "second", 40),
      entry("third", null, 10),
      // The last line is the view leaf: its root, "first", leads in both anyway.
      entry("leaf", "first", 55),
    ];
    fs.writeFileSync(file, `${lines.join("\n")}\n`);
    importPath(lib.db, file);

    const tree = loadSessionTree(lib.db, "roots");
    const layout = layoutTree(tree.nodes, {
      filter: "all",
      viewLeafId: tree.viewLeafId,
      collapseChains: false,
    });
    expect(layout.childrenOf.get(ROOTS_KEY)).toEqual(["first", "second", "third"]);
    expect(layout.childrenOf.get("second")).toEqual(["sooner", "later"]);

    const show = await runCliCaptured(["show", "roots", "--db", lib.dbFile]);
    const ids = show.out
      .split("\n")
      .map((line) => /^[*> ] [ │├─]*(\S+) user /.exec(line)?.[1])
      .filter((id) => id !== undefined);
    expect(ids).toEqual(["first", "leaf", "second", "sooner", "later", "third"]);
    const shownRoots = show.out
      .split("\n")
      .map((line) => /^[*> ] ├─(\S+) /.exec(line)?.[1])
      .filter((id) => id !== undefined);
    expect(shownRoots).toEqual(layout.childrenOf.get(ROOTS_KEY));
  });
});
