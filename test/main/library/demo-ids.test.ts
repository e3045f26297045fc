/**
 * The bundled demo sessions are copies of real session files: they take `<header id>~demo`, so a
 * user who imports such a file (the fixtures, say) finds it under its own header id.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createAppContext } from "../../../main/app-context.ts";
import type { AppContext } from "../../../main/api/types.ts";
import { importPath } from "../../../main/library/import.ts";
import { listSessionRows } from "../../../main/store/repos/sessions.ts";
import { fixturePath } from "../../helpers/fixtures.ts";

let dir = "";
let ctx: AppContext | null = null;

afterEach(() => {
  ctx?.db.close();
  ctx = null;
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("demo session ids", () => {
  it("a fixture imported into a fresh library keeps its header id; the demo copy is <id>~demo", () => {
    dir = mkdtempSync(path.join(os.tmpdir(), "canopy-demo-ids-"));
    ctx = createAppContext({ dbPath: path.join(dir, "library.db"), seedDemo: true, loadUserHooks: false });
    const demos = listSessionRows(ctx.db).filter((row) => row.is_demo === 1);
    expect(demos).toHaveLength(3);
    for (const demo of demos) expect(demo.id).toBe(`${demo.header_id}~demo`);

    const report = importPath(ctx.db, fixturePath("tree-00.jsonl"));
    const imported = report.files[0];
    expect(imported?.sessionId).toBe("01a2361e-31af-75a7-95c2-9bc5d25359f5");
    expect(demos.map((row) => row.header_id)).toContain(imported?.sessionId);
  });
});
