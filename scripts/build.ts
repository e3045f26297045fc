/**
 * Builds what the app needs to run: the renderer (Vite) into dist/renderer, and the Electron
 * main process (ESM) and preload (one CommonJS file, as sandboxed preloads require) into
 * dist/electron. `ensureRendererBuilt` skips the work when the output is newer than the sources.
 */
import { existsSync, readdirSync, rmSync, statSync } from "node:fs";
import { builtinModules } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "vite";

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const rendererDist = path.join(repoRoot, "dist", "renderer");

function newestMtime(target: string): number {
  if (!existsSync(target)) return 0;
  const stat = statSync(target);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const name of readdirSync(target)) newest = Math.max(newest, newestMtime(path.join(target, name)));
  return newest;
}

/**
 * Builds the renderer into `outDir` (default dist/renderer). Always React's production build:
 * Vite and the React plugin take the mode from NODE_ENV when it is set, and test runners set
 * it to "test" (a renderer built by `npm test` was React's development build, several times
 * slower, and `npm start` then served it as up to date).
 */
export async function buildRenderer(outDir?: string): Promise<void> {
  const before = process.env.NODE_ENV;
  process.env.NODE_ENV = "production";
  try {
    await build({
      configFile: path.join(repoRoot, "vite.config.ts"),
      logLevel: "warn",
      mode: "production",
      ...(outDir === undefined ? {} : { build: { outDir, emptyOutDir: true } }),
    });
  } finally {
    if (before === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = before;
  }
}

/** Rebuilds the renderer only when its sources (core, or how it is built) changed since the last build. */
export async function ensureRendererBuilt(): Promise<void> {
  const builtAt = newestMtime(path.join(rendererDist, "index.html"));
  const sourcesAt = Math.max(
    newestMtime(path.join(repoRoot, "renderer")),
    newestMtime(path.join(repoRoot, "core")),
    newestMtime(path.join(repoRoot, "vite.config.ts")),
    newestMtime(fileURLToPath(import.meta.url)),
  );
  if (builtAt === 0 || sourcesAt > builtAt) await buildRenderer();
}

const nodeExternals = [...builtinModules, ...builtinModules.map((name) => `node:${name}`)];

/** Bundles main and the import worker (ESM) and preload (CJS) into `outDir` (default dist/electron). */
export async function buildElectron(outDir = path.join(repoRoot, "dist", "electron")): Promise<void> {
  const pkg = (await import(path.join(repoRoot, "package.json"), { with: { type: "json" } })) as {
    default: { dependencies: Record<string, string> };
  };
  const dependencies = Object.keys(pkg.default.dependencies);
  const external = (id: string) =>
    id === "electron" ||
    nodeExternals.includes(id) ||
    dependencies.some((dep) => id === dep || id.startsWith(`${dep}/`));
  /** One Node-side entry bundled into a single file of outDir. */
  const bundle = (entry: string, fileName: string, format: "es" | "cjs", externals: (id: string) => boolean) =>
    build({
      configFile: false,
      logLevel: "warn",
      build: {
        outDir,
        emptyOutDir: false,
        ssr: path.join(repoRoot, entry),
        target: "node22",
        minify: false,
        rollupOptions: { external: externals, output: { format, entryFileNames: fileName } },
      },
    });
  rmSync(outDir, { recursive: true, force: true });
  await bundle("main/index.ts", "main.js", "es", external);
  // The import worker (main/library/parallel-rows.ts) runs as its own file next to main.js.
  await bundle("main/library/import-worker.ts", "import-worker.js", "es", external);
  // The thread the app's imports run on (main/library/import-runner.ts), next to main.js too.
  await bundle("main/library/import-runner-worker.ts", "import-runner-worker.js", "es", external);
  // Sandboxed preloads cannot load modules: one CommonJS file that imports only electron.
  await bundle("preload/index.ts", "preload.cjs", "cjs", (id) => id === "electron");
}

const invokedDirectly = process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (invokedDirectly) {
  await buildRenderer();
  await buildElectron();
  console.log("built dist/renderer and dist/electron");
}
