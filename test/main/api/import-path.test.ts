// library:import and library:set-folders take whole paths only: a path that is not one on this
// computer (a Windows path pasted into the import form on Linux or macOS, which the form lets
// through as it cannot tell the server's system) is refused in the user's words. It was taken
// relative to the server's own working folder: "No such file or folder: /home/…/canopy/C:\Users\…".
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createHarness, type Harness, removeDir, turnsSession } from "../pipelines/harness.ts";

let h: Harness;
beforeEach(() => {
  h = createHarness();
});
afterEach(() => {
  h.close();
  removeDir(h.dir);
});

const foreign = process.platform === "win32" ? "relative\\a.jsonl" : "C:\\Users\\someone\\a.jsonl";

describe("paths the import form and the agent folders take", () => {
  it("refuses a path that is not a whole path here, naming it, not the server's folder", async () => {
    const error = await h.fail("library:import", { path: foreign });
    expect(error.code).toBe("invalid_input");
    expect(error.message).toBe(
      `“${foreign}” is not a whole path on this computer: give it from the top (/…) or from your home folder (~/…).`,
    );
    expect(error.message).not.toContain(process.cwd());
    const folders = await h.fail("library:set-folders", { folders: [foreign] });
    expect(folders.message).toContain(`“${foreign}” is not a whole path on this computer`);
  });
});

describe("the export dialog's path", () => {
  it("takes ~/… as the home folder, never as a folder named ~ in the server's working folder", async () => {
    const sessionId = await h.importSession(turnsSession(2));
    const home = path.join(h.dir, "home");
    fs.mkdirSync(home);
    const before = process.env.HOME;
    process.env.HOME = home;
    try {
      const result = await h.call("session:export", { sessionId, outPath: "~/exports ü/out.jsonl" });
      expect(result.path).toBe(path.join(home, "exports ü", "out.jsonl"));
      expect(fs.existsSync(path.join(home, "exports ü", "out.jsonl"))).toBe(true);
      expect(fs.existsSync(path.join(process.cwd(), "~"))).toBe(false);
    } finally {
      process.env.HOME = before;
    }
  });

  it("refuses a relative path (it was written into the server's working folder)", async () => {
    const sessionId = await h.importSession(turnsSession(2));
    const error = await h.fail("session:export", { sessionId, outPath: "relative-export.jsonl" });
    expect(error.code).toBe("invalid_input");
    expect(error.message).toContain("“relative-export.jsonl” is not a whole path on this computer");
    expect(fs.existsSync(path.join(process.cwd(), "relative-export.jsonl"))).toBe(false);
  });
});
