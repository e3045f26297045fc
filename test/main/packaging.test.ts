// Packaging without the Electron binary: the bundled main.js imports only electron, Node
// built-ins and dependencies and starts in plain Node with a recording fake `electron`; the
// electron-builder config validates and lays out a Linux app (stub Electron, nothing downloaded).
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { builtinModules, createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { MessageChannel, Worker } from "node:worker_threads";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHANNELS } from "../../core/api/contract.ts";
import { ThreadImports } from "../../main/library/import-runner.ts";
import { PARALLEL_PARSE_MIN_BYTES } from "../../main/library/parallel-rows.ts";
import { openDatabase } from "../../main/store/open.ts";
import { buildElectron } from "../../scripts/build.ts";
import { repoRoot } from "../helpers/fixtures.ts";

const run = promisify(execFile);
const require = createRequire(import.meta.url);
const electronDir = path.join(repoRoot, "dist", "electron");
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), "canopy-packaging-"));
  // The same step as `npm run build` for the Electron side (the renderer is not needed here).
  await buildElectron(electronDir);
}, 120_000);

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Module specifiers a bundle loads: static and dynamic imports, and require calls. */
function specifiers(code: string): string[] {
  const found = new Set<string>();
  for (const pattern of [
    /^\s*import\s[^"']*?from\s*["']([^"']+)["']/gm,
    /^\s*import\s*["']([^"']+)["']/gm,
    /\bimport\(\s*["']([^"']+)["']\s*\)/g,
    /\brequire\(\s*["']([^"']+)["']\s*\)/g,
  ]) {
    for (const match of code.matchAll(pattern)) if (match[1]) found.add(match[1]);
  }
  return [...found];
}

describe("the Electron bundle", () => {
  it("imports only electron, Node built-ins and declared dependencies", () => {
    const pkg = JSON.parse(readFileSync(path.join(repoRoot, "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
    };
    const dependencies = Object.keys(pkg.dependencies);
    const allowed = (id: string) =>
      id === "electron" ||
      builtinModules.includes(id.replace(/^node:/, "")) ||
      dependencies.some((dep) => id === dep || id.startsWith(`${dep}/`));
    const main = specifiers(readFileSync(path.join(electronDir, "main.js"), "utf8"));
    expect(main).toEqual(expect.arrayContaining(["electron", "better-sqlite3", "openai"]));
    expect(main.filter((id) => !allowed(id))).toEqual([]);
    expect(specifiers(readFileSync(path.join(electronDir, "preload.cjs"), "utf8"))).toEqual(["electron"]);
  });

  it("bundles the import worker as its own file that runs without the TypeScript sources", async () => {
    const lines = [
      { type: "message", id: "a", parentId: null, timestamp: "t", message: { role: "user", content: "hi" } },
      {
        type: "message",
        id: "b",
        parentId: "a",
        timestamp: "t",
        message: { role: "assistant", content: [] },
      },
    ];
    const bytes = Buffer.from(`${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
    const { port1, port2 } = new MessageChannel();
    const worker = new Worker(path.join(electronDir, "import-worker.js"), {
      workerData: { signal: new SharedArrayBuffer(4), port: port2 },
      transferList: [port2],
    });
    worker.on("error", () => {});
    type Message = { kind: string; strings?: unknown[]; ranges?: Float64Array; digest?: { hash: string } };
    const messages: Message[] = [];
    const bothDone = new Promise<void>((resolve) => {
      port1.on("message", (message: Message) => {
        messages.push(message);
        if (messages.filter((m) => m.kind === "done" || m.kind === "error").length === 2) resolve();
      });
    });
    // The same thread takes one file after another; the second is posted before the first is
    // parsed (a folder import reads ahead), and a file without a job (no header found) is skipped.
    for (const job of [true, false, true]) {
      const shared = new SharedArrayBuffer(bytes.length);
      bytes.copy(Buffer.from(shared));
      port1.postMessage({ kind: "file", shared, size: bytes.length, progress: new SharedArrayBuffer(8) });
      if (job) port1.postMessage({ kind: "job", start: 0, firstLine: 2, omp: false, migration: null });
      port1.postMessage({ kind: "end", length: bytes.length });
    }
    await bothDone;
    port1.close();
    await worker.terminate();
    expect(messages.map((m) => m.kind)).toEqual(["batch", "done", "batch", "done"]);
    expect(messages[0]).toMatchObject({
      strings: ["a", null, "t", "b", "a", "t"],
      names: ["message", "user", null, "assistant"],
    });
    expect([...(messages[0]?.ranges?.slice(0, 2) ?? [])]).toEqual([0, JSON.stringify(lines[0]).length]);
    // The worker hashes the file as it parses it, and checks the tree order.
    const hash = createHash("sha256").update(bytes).digest("hex");
    expect(messages[1]).toMatchObject({
      kind: "done",
      digest: { hash, importedHash: hash, lines: 2 },
      treeInOrder: true,
    });
    expect(messages[3]).toEqual(messages[1]);
  });

  it("bundles the import runner as its own file: the app's imports run on it (a file large enough for its import worker included)", async () => {
    const folder = path.join(dir, "runner-sessions");
    mkdirSync(folder, { recursive: true });
    copyFileSync(
      path.join(repoRoot, "main", "demo", "refactor-small.jsonl"),
      path.join(folder, "small.jsonl"),
    );
    // Over the size that sends a file to the import worker (PARALLEL_PARSE_MIN_BYTES).
    const lines = [JSON.stringify({ type: "session", version: 3, id: "big", timestamp: "t", cwd: "/w" })];
    let parentId: string | null = null;
    for (let i = 0; lines.length < 9000; i++) {
      const id = `e${i}`;
      const text = `line ${i} `.repeat(120);
      lines.push(
        JSON.stringify({
          type: "message",
          id,
          parentId,
          timestamp: "t",
          message: { role: "user", content: text },
        }),
      );
      parentId = id;
    }
    writeFileSync(path.join(folder, "big.jsonl"), `${lines.join("\n")}\n`);
    expect(statSync(path.join(folder, "big.jsonl")).size).toBeGreaterThan(PARALLEL_PARSE_MIN_BYTES);
    const dbFile = path.join(dir, "runner.db");
    const db = openDatabase(dbFile);
    const runner = new ThreadImports(db, dbFile, {
      script: path.join(electronDir, "import-runner-worker.js"),
    });
    try {
      let ticks = 0;
      const timer = setInterval(() => ticks++, 1);
      const progress: number[] = [];
      const report = await runner
        .run(folder, (done) => progress.push(done))
        .finally(() => clearInterval(timer));
      const smallEntries =
        readFileSync(path.join(folder, "small.jsonl"), "utf8").trim().split("\n").length - 1;
      expect(report).toMatchObject({ imported: 2, failed: 0, entriesAdded: 8999 + smallEntries });
      expect(progress).toEqual([1, 2]);
      // On the thread: this one kept running meanwhile.
      expect(ticks).toBeGreaterThan(0);
      expect(
        specifiers(readFileSync(path.join(electronDir, "import-runner-worker.js"), "utf8")),
      ).not.toContain("electron");
    } finally {
      await runner.close();
      db.close();
    }
  });

  it("starts in Node with a fake electron: secure window, every channel bound, a session file from argv opened", async () => {
    const file = path.join(dir, "opened.jsonl");
    copyFileSync(path.join(repoRoot, "main", "demo", "refactor-small.jsonl"), file);
    const report = path.join(dir, "report.json");
    await run(
      process.execPath,
      [
        "--import",
        path.join(repoRoot, "test", "helpers", "electron-stub-register.ts"),
        path.join(electronDir, "main.js"),
        "opened.jsonl",
      ],
      {
        cwd: dir,
        timeout: 30_000,
        env: {
          ...process.env,
          CANOPY_DB: path.join(dir, "data", "library.db"),
          CANOPY_NO_WATCH: "1",
          CANOPY_FAKE_ELECTRON_REPORT: report,
        },
      },
    );
    const result = JSON.parse(readFileSync(report, "utf8"));
    expect(result.log).toContain("app.enableSandbox");
    expect(result.windowOptions.webPreferences).toMatchObject({
      preload: path.join(repoRoot, "dist", "electron", "preload.cjs"),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
    });
    expect(result.loadedFile).toBe(path.join(repoRoot, "dist", "renderer", "index.html"));
    expect(result).toMatchObject({
      shown: true,
      guarded: true,
      permissionHandlers: true,
      themeSource: "system",
    });
    expect(result.channels).toEqual([...CHANNELS]);
    expect(result.menu).toEqual(["&File", "editMenu", "&Session", "&View", "windowMenu", "help"]);
    const command = result.sent.find((message: { channel: string }) => message.channel === "app:command");
    expect(command.payload).toMatchObject({ command: "open-session", sessionId: expect.any(String) });
    expect(existsSync(path.join(dir, "data", "library.db"))).toBe(true);
  }, 60_000);
});

describe("electron-builder", () => {
  const builder = path.join(repoRoot, "node_modules", ".bin", "electron-builder");

  it("runs offline and declares the targets, the file association and the native module handling", async () => {
    const { stdout } = await run(builder, ["--help"], { cwd: repoRoot, timeout: 30_000 });
    expect(stdout).toContain("--linux");
    const yaml = require("js-yaml") as { load(text: string): unknown };
    const config = yaml.load(readFileSync(path.join(repoRoot, "electron-builder.yml"), "utf8"));
    expect(config).toMatchObject({
      npmRebuild: false,
      asarUnpack: ["**/node_modules/better-sqlite3/prebuilds/*.node"],
      fileAssociations: [expect.objectContaining({ ext: "jsonl" })],
      linux: { target: ["AppImage", "deb"] },
      mac: { target: "dmg" },
      win: { target: "nsis" },
    });
  });

  it("validates the config and lays out a Linux app with a stub Electron (no download)", async () => {
    const stub = path.join(dir, "electron-stub");
    mkdirSync(stub);
    // electron-builder renames the Electron executable; a placeholder stands in for it.
    writeFileSync(path.join(stub, "electron"), "#!/bin/sh\n", { mode: 0o755 });
    const out = path.join(dir, "release");
    await run(builder, ["--linux", "dir", `-c.electronDist=${stub}`, `-c.directories.output=${out}`], {
      cwd: repoRoot,
      timeout: 120_000,
    });
    const resources = path.join(out, "linux-unpacked", "resources");
    const asar = require("@electron/asar") as { listPackage(file: string): string[] };
    const files = asar
      .listPackage(path.join(resources, "app.asar"))
      .map((name) => name.replaceAll("\\", "/"));
    for (const expected of [
      "/package.json",
      "/dist/electron/main.js",
      "/dist/electron/preload.cjs",
      "/dist/electron/import-worker.js",
      "/dist/electron/import-runner-worker.js",
      "/prompts/compaction-summary.md",
      "/main/demo/refactor-small.jsonl",
    ]) {
      expect(files).toContain(expected);
    }
    expect(files.some((name) => name.startsWith("/node_modules/better-sqlite3/src/"))).toBe(false);
    expect(files.some((name) => name.startsWith("/main/") && name.endsWith(".ts"))).toBe(false);
    // What only the page uses is inside the renderer's Vite bundle: packaging its modules again
    // only made the app bigger (package.json keeps them with the build tools).
    for (const pageOnly of ["react", "react-dom", "@xyflow/react", "zustand", "marked", "d3-hierarchy"]) {
      expect(files.some((name) => name.startsWith(`/node_modules/${pageOnly}/`))).toBe(false);
    }
    expect(
      existsSync(
        path.join(
          resources,
          "app.asar.unpacked",
          "node_modules",
          "better-sqlite3",
          "prebuilds",
          "linux-x64.node",
        ),
      ),
    ).toBe(true);
    expect(existsSync(path.join(out, "linux-unpacked", "canopy"))).toBe(true);
  }, 150_000);
});
