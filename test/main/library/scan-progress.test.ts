// The progress line of a scan of the agent folders, as the contract's events carry it: each folder
// is named by its path with the home folder as ~ (both agents' folders end in "sessions"), and a
// file is named as done once it is ("Imported x.jsonl"), not as if it were still being read.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { importProgressText } from "../../../core/api/contract.ts";
import { createApi } from "../../../main/api/dispatch.ts";
import { progressName } from "../../../main/api/handlers/library.ts";
import { createAppContext } from "../../../main/app-context.ts";
import { copyFixture } from "./helpers.ts";

let dir: string;
let home: string | undefined;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "canopy-scan-progress-"));
  home = process.env.HOME;
  // os.homedir() reads HOME: the agents' folders are under this test's own home.
  process.env.HOME = path.join(dir, "home");
});

afterEach(() => {
  if (home === undefined) delete process.env.HOME;
  else process.env.HOME = home;
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("a scan's progress line", () => {
  it("names the pi and omp folders apart, and each file as imported once it is", async () => {
    const pi = path.join(dir, "home", ".pi", "agent", "sessions");
    const omp = path.join(dir, "home", ".omp", "agent", "sessions");
    copyFixture("tree-00.jsonl", path.join(pi, "--w--"));
    copyFixture("tree-02.jsonl", path.join(pi, "--w--"));
    copyFixture("tree-01.omp.jsonl", path.join(omp, "--w--"));
    copyFixture("tree-03.jsonl", path.join(omp, "--w--"));
    const ctx = createAppContext({
      dbPath: path.join(dir, "library.db"),
      seedDemo: false,
      loadUserHooks: false,
    });
    const api = createApi(ctx);
    const lines: string[] = [];
    ctx.events.subscribe((name, payload) => {
      if (name !== "job:progressed") return;
      const text = importProgressText(payload as Parameters<typeof importProgressText>[0]);
      if (text !== null) lines.push(text);
    });
    try {
      expect(
        await api.call("library:set-folders", { folders: ["~/.pi/agent/sessions", "~/.omp/agent/sessions"] }),
      ).toMatchObject({ ok: true });
      expect(await api.call("library:import-default-folders", {})).toMatchObject({ ok: true });
      expect(lines).toEqual([
        "Importing ~/.pi/agent/sessions (0/4)",
        expect.stringMatching(/^Imported tree-0[02]\.jsonl \(1\/4\)$/),
        "Storing the last files (2/4)",
        "Going on with the next folder (2/4)",
        "Importing ~/.omp/agent/sessions (2/4)",
        expect.stringMatching(/^Imported tree-0(1\.omp|3)\.jsonl \(3\/4\)$/),
        "Storing the last files (4/4)",
        "Finishing the import (4/4)",
      ]);
    } finally {
      await ctx.imports.close();
      ctx.db.close();
    }
  });

  it("names a file by its name and a folder outside the home folder by its whole path", () => {
    expect(progressName("/home/ann/.pi/agent/sessions", false, "/home/ann")).toBe("~/.pi/agent/sessions");
    expect(progressName("/home/ann/x/a.jsonl", true, "/home/ann")).toBe("a.jsonl");
    expect(progressName("/home/annex/sessions", false, "/home/ann")).toBe("/home/annex/sessions");
    expect(progressName("/srv/sessions", false, "/home/ann")).toBe("/srv/sessions");
    // A long one keeps its start and the end where the agents' folders differ, 44 characters in all.
    const long = progressName("/mnt/backups/2026/laptop-home/ann/.omp/agent/sessions", false, "/home/ann");
    expect(long).toBe("/mnt/backups…op-home/ann/.omp/agent/sessions");
    expect(long).toHaveLength(44);
  });
});
