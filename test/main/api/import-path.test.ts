// library:import and library:set-folders take whole paths only: a path that is not one on this
// computer (a Windows path pasted into the import form on Linux or macOS, which the form lets
// through as it cannot tell the server's system) is refused in the user's words. It was taken
// relative to the server's own working folder: "No such file or folder: /home/…/canopy/C:\Users\…".
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createHarness, type Harness, removeDir } from "../pipelines/harness.ts";

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
