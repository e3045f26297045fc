// Preloaded by the npm scripts (node --require): caches V8's compiled code of the TypeScript
// sources between runs (Node's module compile cache, in the OS temp folder), so a command
// starts without compiling them again. Worker threads inherit it.
require("node:module").enableCompileCache?.();
