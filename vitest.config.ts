// Test runner configuration: unit tests (core, main) and browser tests (test/e2e) in one run.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    environment: "node",
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // The browser tests poll the page; on a loaded 2-core machine (CI runs files in parallel) a
    // first page load can take longer than expect.poll's 1 s default.
    expect: { poll: { timeout: 10_000 } },
    pool: "forks",
    // The CLI fits its text to COLUMNS when set (README); tests that spawn it read the unfitted
    // output unless they set it themselves, whatever the shell running `npm test` exports.
    env: { COLUMNS: "" },
    // One renderer build per run, made when a browser test first asks for it and shared read-only.
    globalSetup: ["test/setup/global-renderer.ts"],
    // The JSON report lets .ci/run print a plain "N passed, N failed" line.
    reporters: ["default", "json"],
    outputFile: { json: "test-artifacts/vitest-report.json" },
  },
});
