/**
 * Turns of the test's event loop while the import runner's thread works: whether the runner was
 * seen busy, and whether a request sent then (as a window would) was answered while it still was.
 * Shared by the tests that show long work leaves the serving thread free.
 */
import type { Api } from "../../main/api/dispatch.ts";

export interface Served {
  sawRunner: boolean;
  answeredMeanwhile: boolean;
}

/**
 * Runs turns until `done()`; in the first turn the runner is seen busy it sends `request`
 * (by default the library list). Fails after 30 s, naming `what` did not end.
 */
export async function serveWhile(
  api: Api,
  done: () => boolean,
  what: string,
  request: () => Promise<boolean> = async () => (await api.call("library:list", {})).ok,
): Promise<Served> {
  const imports = api.ctx.imports;
  let sawRunner = false;
  let answeredMeanwhile = false;
  const giveUp = Date.now() + 30_000;
  await new Promise<void>((resolve, reject) => {
    const turn = () => {
      if (done()) return resolve();
      if (Date.now() > giveUp) return reject(new Error(`${what} did not end`));
      if (!sawRunner && imports.busy) {
        sawRunner = true;
        void request().then((ok) => {
          answeredMeanwhile = ok && imports.busy;
        });
      }
      setImmediate(turn);
    };
    setImmediate(turn);
  });
  return { sawRunner, answeredMeanwhile };
}
