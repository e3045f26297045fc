/**
 * Loads user hook modules from the hooks folder of the data directory: every `*.js` / `*.mjs`
 * file, in name order, whose default export receives `{ on(event, handler) }`. A module that
 * fails to load or register is reported on the registry, never fatal, and none of its handlers
 * stay registered. Code someone else could have put there (another user's folder or file, or one
 * anyone may write — the library can be in a shared folder like /tmp) is reported, not run.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { HookRegistry } from "./registry.ts";
import { HOOK_EVENT_NAMES, type HookApi } from "./types.ts";

/** Why `target` may hold another user's code, or null (always null where there are no uids). */
export function untrustedReason(target: string, uid = process.getuid?.()): string | null {
  if (uid === undefined) return null;
  const stat = statSync(target);
  if (stat.uid !== uid && stat.uid !== 0) return `it belongs to another user (uid ${stat.uid})`;
  if ((stat.mode & 0o002) !== 0) return "every user may write to it";
  return null;
}

export async function loadHookModules(registry: HookRegistry, dir: string): Promise<string[]> {
  if (!existsSync(dir)) return [];
  const folderProblem = untrustedReason(dir);
  if (folderProblem !== null) {
    registry.report({
      extension: path.basename(dir),
      event: "load",
      message: `hook modules in ${dir} were not loaded: ${folderProblem}`,
    });
    return [];
  }
  const files = readdirSync(dir)
    .filter((name) => name.endsWith(".js") || name.endsWith(".mjs"))
    .sort();
  const loaded: string[] = [];
  for (const name of files) {
    const file = path.join(dir, name);
    const report = (message: string) =>
      registry.report({ extension: name, event: "load", message: `could not load hook module: ${message}` });
    // A module that fails part-way must not leave the handlers it registered before failing.
    const unregister: (() => void)[] = [];
    try {
      const fileProblem = untrustedReason(file);
      if (fileProblem !== null) {
        report(`not run: ${fileProblem}`);
        continue;
      }
      const module = (await import(pathToFileURL(file).href)) as { default?: unknown };
      if (typeof module.default !== "function") {
        report("its default export is not a function (expected `export default (canopy) => { canopy.on(…) }`)");
        continue;
      }
      const api: HookApi = {
        on(event, handler) {
          if (!HOOK_EVENT_NAMES.includes(event)) throw new Error(`unknown hook event "${String(event)}"`);
          unregister.push(registry.register(name, event, handler));
        },
      };
      await (module.default as (api: HookApi) => unknown)(api);
      loaded.push(name);
    } catch (error) {
      for (const undo of unregister) undo();
      report(error instanceof Error ? error.message : String(error));
    }
  }
  return loaded;
}
