/**
 * `node --import` this file to make `import … from "electron"` load test/helpers/fake-electron.ts
 * instead (the real module throws outside Electron). Used by the bundle smoke test.
 */
import { registerHooks } from "node:module";

const fake = new URL("./fake-electron.ts", import.meta.url).href;

registerHooks({
  resolve(specifier, context, nextResolve) {
    if (specifier === "electron") return { url: fake, shortCircuit: true };
    return nextResolve(specifier, context);
  },
});
