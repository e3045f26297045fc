/**
 * Loads user hook modules from the hooks folder of the data directory: every `*.js` / `*.mjs`
 * file, in name order, whose default export receives `{ on(event, handler) }`. A module that
 * fails to load or register is reported on the registry, never fatal, and none of its handlers
 * stay registered.
 */
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { HookRegistry } from "./registry.ts";
import { HOOK_EVENT_NAMES, type HookApi } from "./types.ts";

export async function loadHookModules(registry: HookRegistry, dir: string): Promise<string[]> {
  if (!existsSync(dir)) return [];
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
