#!/usr/bin/env bash
# run-wasm.sh BUILD TEST... — runs tests built with emcc ($BUILD/etests/NAME or vtests/NAME, a .js
# beside its .wasm) under Node.js (tests/run-etests.sh: one summary line like
# tests/run.sh). They are linked with NODERAWFS, so they see the real file system.
set -u
cd "$(dirname "$0")/.."
build=$1; shift
node=$(command -v node || command -v nodejs) || { echo "node not found (scripts/web-deps.sh installs it)"; exit 2; }
# Node 18+ has a global fetch, which emscripten 3.1.6's loader mistakes for a browser's
# ("Failed to parse URL"): switched off where the flag exists
flags=()
"$node" --no-experimental-fetch -e 0 >/dev/null 2>&1 && flags=(--no-experimental-fetch)
exec tests/run-etests.sh wasm node "$build" "$node" "${flags[@]}" -- "$@"
