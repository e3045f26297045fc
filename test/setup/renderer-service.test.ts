// The test run's shared renderer build (renderer-service.ts, build-renderer.ts): concurrent and
// later requests get one build, a failed build is one line for every asker and is not retried,
// and a reset (watch-mode rerun) builds the current sources into a new folder.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { build } from "vite";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildErrorLine, buildRendererInChild } from "./build-renderer.ts";
import { type RendererService, startRendererService } from "./renderer-service.ts";

let root: string;
let service: RendererService | undefined;

beforeEach(() => {
  root = mkdtempSync(path.join(os.tmpdir(), "canopy-renderer-service-"));
});

afterEach(async () => {
  await service?.close();
  service = undefined;
  rmSync(root, { recursive: true, force: true });
});

async function ask(url: string): Promise<{ status: number; text: string }> {
  const response = await fetch(url);
  return { status: response.status, text: await response.text() };
}

/** A build that writes an index.html after a while and counts its calls. */
function slowBuild(calls: string[]): (outDir: string) => Promise<void> {
  return async (outDir) => {
    calls.push(outDir);
    await new Promise((resolve) => setTimeout(resolve, 200));
    mkdirSync(outDir, { recursive: true });
    writeFileSync(path.join(outDir, "index.html"), `<p>build ${calls.length}</p>`);
  };
}

describe("the shared renderer build", () => {
  it("builds once for concurrent and later requests, all getting the same folder", async () => {
    const calls: string[] = [];
    service = await startRendererService(root, slowBuild(calls));
    const first = await Promise.all([ask(service.url), ask(service.url), ask(service.url)]);
    const later = await ask(service.url);
    expect(calls).toHaveLength(1);
    for (const answer of [...first, later]) expect(answer).toEqual({ status: 200, text: calls[0] });
    expect(existsSync(path.join(calls[0] ?? "", "index.html"))).toBe(true);
  });

  it("a failed build is the same one line for every request, and is not retried", async () => {
    let calls = 0;
    service = await startRendererService(root, async () => {
      calls++;
      throw new Error("renderer build failed: renderer/src/x.tsx (3:4): Unexpected token");
    });
    const answers = await Promise.all([ask(service.url), ask(service.url)]);
    answers.push(await ask(service.url));
    expect(calls).toBe(1);
    for (const answer of answers) {
      expect(answer).toEqual({
        status: 500,
        text: "renderer build failed: renderer/src/x.tsx (3:4): Unexpected token",
      });
    }
  });

  it("after a reset the next request builds again, into a new folder, and the old one is gone", async () => {
    const calls: string[] = [];
    service = await startRendererService(root, slowBuild(calls));
    const before = await ask(service.url);
    service.reset();
    const after = await ask(service.url);
    expect(calls).toHaveLength(2);
    expect(after.text).not.toBe(before.text);
    expect(existsSync(before.text)).toBe(false);
    expect(existsSync(path.join(after.text, "index.html"))).toBe(true);
  });

  it("the build process reports its failure as one line", async () => {
    const error = await buildRendererInChild("").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toBe("renderer build failed: no output folder given");
  });

  it("Vite's error for a broken source is one line naming the error and where it is", async () => {
    writeFileSync(path.join(root, "index.html"), '<script type="module" src="./main.ts"></script>');
    writeFileSync(path.join(root, "main.ts"), "export const broken = (;\n");
    const error = await build({ root, configFile: false, logLevel: "silent", build: { write: false } }).catch(
      (e: unknown) => e,
    );
    const line = buildErrorLine(error);
    expect(line).not.toContain("\n");
    expect(line).toMatch(/^\[[\w:-]+\] Unexpected token at \S*main\.ts:1:\d+$/);
  });
});
