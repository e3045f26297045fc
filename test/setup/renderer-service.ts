/**
 * The test run's one renderer build, handed out over HTTP on 127.0.0.1: the first request builds
 * (into a fresh folder under `root`), every later or concurrent request gets the same folder, or
 * the same one-line error when the build failed. `reset()` makes the next request build again.
 */
import { rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";

export interface RendererService {
  /** GET it: 200 with the built folder's path, or 500 with the build's one-line error. */
  url: string;
  /** Forgets the build (its folder is removed) so the next request builds the current sources. */
  reset(): void;
  close(): Promise<void>;
}

/** `build` writes the renderer into the folder it is given (which does not exist yet). */
export async function startRendererService(
  root: string,
  build: (outDir: string) => Promise<void>,
): Promise<RendererService> {
  let builds = 0;
  let current: { dir: string; done: Promise<string> } | undefined;
  const renderer = (): Promise<string> => {
    if (!current) {
      const dir = path.join(root, `build-${++builds}`);
      current = { dir, done: build(dir).then(() => dir) };
      // Answered to every request; an unhandled rejection must not end the run meanwhile.
      current.done.catch(() => {});
    }
    return current.done;
  };
  const server = createServer((request, response) => {
    if (request.url !== "/renderer") {
      response.writeHead(404).end();
      return;
    }
    renderer().then(
      (dir) => response.writeHead(200, { "content-type": "text/plain" }).end(dir),
      (error: unknown) =>
        response
          .writeHead(500, { "content-type": "text/plain" })
          .end(error instanceof Error ? error.message : String(error)),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/renderer`,
    reset() {
      if (current) rmSync(current.dir, { recursive: true, force: true });
      current = undefined;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
