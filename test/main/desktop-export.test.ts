// Exporting from the desktop app without a typed path: main asks with its save dialog
// (session:choose-export-path) and the page then exports to that path, so main writes the file
// as it reads the rows and the export text never crosses IPC. Driven through desktop.ts with a
// fake electron; browser mode and the CLI have no dialog and say so.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createApi } from "../../main/api/dispatch.ts";
import { createAppContext } from "../../main/app-context.ts";
import { type DesktopElectron, startDesktop } from "../../main/desktop.ts";
import { rendererIndexPath } from "../../main/window.ts";
import { createFakeElectron, type FakeElectron, preventable } from "../helpers/fake-electron.ts";
import { repoRoot } from "../helpers/fixtures.ts";

const ts = "2026-01-01T00:00:00.000Z";
const appUrl = pathToFileURL(rendererIndexPath(repoRoot)).href;

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "canopy-desktop-export-"));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

function sessionText(id: string): string {
  const lines = [
    { type: "session", version: 3, id, timestamp: ts, cwd: "/tmp" },
    {
      type: "message",
      id: "a1",
      parentId: null,
      timestamp: ts,
      message: { role: "user", content: "hi", timestamp: 1 },
    },
  ];
  return lines.map((line) => `${JSON.stringify(line)}\n`).join("");
}

async function until(check: () => boolean, what: string) {
  const end = Date.now() + 5000;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

async function quit(fake: FakeElectron) {
  fake.app.emit("will-quit", preventable());
  await until(() => fake.log.includes("app.quit"), "the quit");
}

describe("export from the desktop app", () => {
  it("saves where the save dialog says, the text written by main and never sent to the page", async () => {
    const source = path.join(dir, "2026-01-01_s1.jsonl");
    fs.writeFileSync(source, sessionText("s1"));
    const fake = createFakeElectron();
    startDesktop(fake as unknown as DesktopElectron, {
      appDir: repoRoot,
      argv: ["/usr/bin/canopy", source],
      cwd: dir,
      env: { CANOPY_DB: path.join(dir, "data", "library.db"), CANOPY_NO_WATCH: "1", CANOPY_NO_DEMO: "1" },
      platform: "linux",
    });
    await until(() => fake.windows.length === 1, "the window");
    fake.windows[0]?.webContents.emit("did-finish-load");
    await until(
      () => fake.windows[0]?.webContents.sent.some((m) => m.channel === "app:command") ?? false,
      "the import",
    );
    try {
      const target = path.join(dir, "out", "saved.jsonl");
      fs.mkdirSync(path.dirname(target));
      fake.saveDialogResults.push({ canceled: false, filePath: target });
      const chosen = await fake.invoke("session:choose-export-path", { sessionId: "s1" }, appUrl);
      expect(chosen).toEqual({ ok: true, value: { path: target } });
      // The dialog suggested the session file's own name.
      expect(fake.log).toContain("dialog.showSaveDialog 2026-01-01_s1.jsonl");
      const exported = await fake.invoke("session:export", { sessionId: "s1", outPath: target }, appUrl);
      expect(exported).toEqual({ ok: true, value: { lines: 2, path: target } });
      expect(fs.readFileSync(target, "utf8")).toBe(sessionText("s1"));

      // Cancelled: no path, nothing written.
      expect(await fake.invoke("session:choose-export-path", { sessionId: "s1" }, appUrl)).toEqual({
        ok: true,
        value: { path: null },
      });
      expect(await fake.invoke("session:choose-export-path", { sessionId: "nope" }, appUrl)).toMatchObject({
        ok: false,
        error: { code: "not_found" },
      });
    } finally {
      await quit(fake);
    }
  });

  it("is unsupported where there is no save dialog (browser mode, CLI)", async () => {
    const api = createApi(
      createAppContext({
        dbPath: path.join(dir, "library.db"),
        seedDemo: false,
        loadUserHooks: false,
        env: {},
      }),
    );
    try {
      const file = path.join(dir, "s2.jsonl");
      fs.writeFileSync(file, sessionText("s2"));
      expect((await api.call("library:import", { path: file })).ok).toBe(true);
      const answer = await api.call("session:choose-export-path", { sessionId: "s2" });
      expect(answer).toMatchObject({ ok: false, error: { code: "unsupported" } });
      if (!answer.ok) expect(answer.error.message).not.toContain("\n");
    } finally {
      api.ctx.db.close();
    }
  });
});
