#!/usr/bin/env bash
# Starts the memplan playground: installs what is missing (scripts/setup.sh), builds both wasm
# variants and the page, and serves it with the cross-origin isolation headers (threads need them)
# on http://127.0.0.1:5173 with an example loaded (or the next free port above it; `--port N` or
# PORT=N asks for N, and fails when N is taken). Ctrl-C stops it.
# Each step says what it does and how long it takes the first time; a step whose output is newer
# than all its inputs is skipped, so a second start takes seconds.
set -euo pipefail
cd "$(dirname "$0")/.."

port=${PORT:-}
while [ $# -gt 0 ]; do
  case $1 in
    --port) port=${2:?--port needs a number}; shift 2 ;;
    --port=*) port=${1#--port=}; shift ;;
    -h|--help) echo "usage: scripts/play.sh [--port N]   (or PORT=N; default: 5173 or the next free port)"; exit 0 ;;
    *) echo "play.sh: unknown argument $1 (usage: scripts/play.sh [--port N])" >&2; exit 2 ;;
  esac
done
case $port in
  '' | *[!0-9]*) [ -z "$port" ] || { echo "play.sh: --port wants a number, not $port" >&2; exit 2; } ;;
esac
# True when something already listens on 127.0.0.1:$1.
port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

began=$SECONDS
step() { echo; echo "== [$1/4] $2"; }
done_in() { echo "   done in $((SECONDS - $1)) s"; }
# True when $1 is missing or a file under the other arguments is newer than it.
stale() {
  local output=$1
  shift
  [ -e "$output" ] || return 0
  [ -n "$(find "$@" -newer "$output" -type f -print -quit 2>/dev/null)" ]
}

t=$SECONDS
step 1 "set-up: Rust targets, wasm-bindgen-cli, npm packages (first time up to 10 minutes: wasm-bindgen-cli compiles from source)"
bash scripts/setup.sh
done_in "$t"

t=$SECONDS
wasm_inputs=(crate/src crate/Cargo.toml Cargo.toml Cargo.lock scripts/build-wasm.sh scripts/versions.sh)
if stale web/src/pkg-st/index_bg.wasm "${wasm_inputs[@]}" || stale web/src/pkg-threads/index_bg.wasm "${wasm_inputs[@]}"; then
  step 2 "the core compiled to wasm, threaded and single-threaded (first time about 5 minutes, then under a minute)"
  bash scripts/build-wasm.sh
  done_in "$t"
else
  step 2 "the core compiled to wasm: up to date, skipped"
fi

t=$SECONDS
if stale dist/index.html web public vite.config.ts package.json tsconfig.json; then
  step 3 "the page: type check and bundle (about 10 seconds)"
  npm run --silent build
  done_in "$t"
else
  step 3 "the page: up to date, skipped"
fi
# The docs element, served at /embed/ so that /docs-sample.html shows it (a fresh page build
# empties dist/, and with it this copy).
if stale dist/embed/memplan-plan.js web public vite.config.ts package.json tsconfig.json; then
  echo "   the docs element <memplan-plan> (about 10 seconds)"
  npm run --silent build:embed
  rm -rf dist/embed
  cp -r dist-embed dist/embed
fi

if [ -n "$port" ]; then
  if port_busy "$port"; then
    echo "play.sh: port $port is already in use; choose another with --port N" >&2
    exit 1
  fi
else
  port=5173
  while port_busy "$port"; do
    echo "   port $port is in use, trying $((port + 1))"
    port=$((port + 1))
  done
fi

step 4 "serving (ready $((SECONDS - began)) s after start)"
echo
echo "memplan playground: http://127.0.0.1:$port/"
echo "the docs element on a sample page: http://127.0.0.1:$port/docs-sample.html"
echo
exec npx vite preview --port "$port" --strictPort
