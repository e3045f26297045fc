// Plain JavaScript on purpose: it must run on any Node version and explain, in one line, that
// Canopy needs Node >= 22.12 (it runs its TypeScript sources with Node's type stripping).
const [major, minor] = process.versions.node.split(".").map(Number);
if (major < 22 || (major === 22 && minor < 12)) {
  console.error(
    `canopy: Node ${process.versions.node} is too old; Canopy needs Node >= 22.12 (Node 24 LTS recommended). ` +
      "Run `source scripts/node24.sh` to get Node 24 from the npm registry.",
  );
  process.exit(1);
}
