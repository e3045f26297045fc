/**
 * vitest globalSetup: one renderer build per test run, shared read-only by every test file that
 * asks for it (test/helpers/shared-renderer.ts). Built on the first request, so a run without
 * browser tests builds nothing; rebuilt after a watch-mode rerun; removed when the run ends.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { buildRendererInChild } from "./build-renderer.ts";
import { startRendererService } from "./renderer-service.ts";

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const root = mkdtempSync(path.join(os.tmpdir(), "canopy-test-renderer-"));
  const service = await startRendererService(root, buildRendererInChild);
  project.provide("canopyRendererUrl", service.url);
  project.onTestsRerun(() => service.reset());
  return async () => {
    await service.close();
    rmSync(root, { recursive: true, force: true });
  };
}
