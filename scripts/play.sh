#!/usr/bin/env bash
# Starts the memplan playground: installs what is missing (scripts/setup.sh), builds both wasm
# variants and the page, and serves it with the cross-origin isolation headers (threads need them)
# on http://127.0.0.1:5173 with an example loaded (or the next free port above it; `--port N` or
# PORT=N asks for N, and fails when N is taken). Ctrl-C stops it.
# Each step says what it does and how long it takes the first time, and a long one says every 20 s
# what it is building; a step whose output is newer than all its inputs is skipped, so a second
# start takes seconds. On a fresh machine the slow parts run side by side (each mostly keeps one
# core busy at its end): the threaded and the single-threaded wasm compile while wasm-bindgen-cli
# installs; their logs are in target/play/.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/versions.sh
bindgen_ready() { wasm-bindgen --version 2>/dev/null | grep -q " $WASM_BINDGEN\$"; }

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

# Background jobs: a name, its pid and its log; `wait_jobs` waits for all of them, saying every
# 20 s which are still running and the last thing each logged (cargo's "Compiling ..." line).
job_names=()
job_pids=()
job_logs=()
mkdir -p target/play
start_job() {
  local name=$1
  shift
  local log="target/play/${name// /-}.log"
  # In a session of its own, so that stopping play.sh stops the whole job (cargo included).
  setsid "$@" >"$log" 2>&1 &
  job_names+=("$name")
  job_pids+=($!)
  job_logs+=("$log")
  echo "   started: $name (log: $log)"
}
stop_jobs() {
  local pid
  for pid in "${job_pids[@]}"; do kill -- "-$pid" 2>/dev/null || true; done
}
trap stop_jobs EXIT
# What a job's log says it does now: cargo's last "Compiling ..." (or like) line; a warning's
# note printed meanwhile is not news.
last_step() {
  local line
  line=$(grep -E '^ *(Compiling|Installing|Installed|Updating|Locking|Downloading|Downloaded|Finished|Replacing|error)' "$1" | tail -n 1 | sed 's/^ *//' | cut -c1-90)
  echo "${line:-starting}"
}
wait_jobs() {
  local began=$SECONDS next=$((SECONDS + 20)) running failed=0 i
  while :; do
    running=()
    for i in "${!job_pids[@]}"; do
      kill -0 "${job_pids[$i]}" 2>/dev/null && running+=("$i")
    done
    [ ${#running[@]} -eq 0 ] && break
    if [ $SECONDS -ge $next ]; then
      next=$((SECONDS + 20))
      for i in "${running[@]}"; do
        echo "   ... $((SECONDS - began)) s: ${job_names[$i]}: $(last_step "${job_logs[$i]}")"
      done
    fi
    sleep 1
  done
  for i in "${!job_pids[@]}"; do
    if ! wait "${job_pids[$i]}"; then
      echo "play.sh: ${job_names[$i]} failed; the end of ${job_logs[$i]}:" >&2
      tail -n 25 "${job_logs[$i]}" >&2
      failed=1
    fi
  done
  job_names=()
  job_pids=()
  job_logs=()
  return $failed
}

t=$SECONDS
step 1 "set-up: Rust targets, the pinned nightly, npm packages"
bash scripts/setup.sh --no-bindgen
done_in "$t"

t=$SECONDS
wasm_inputs=(crate/src crate/Cargo.toml Cargo.toml Cargo.lock scripts/build-wasm.sh scripts/versions.sh)
if stale web/src/pkg-st/index_bg.wasm "${wasm_inputs[@]}" || stale web/src/pkg-threads/index_bg.wasm "${wasm_inputs[@]}"; then
  step 2 "the core compiled to wasm, threaded and single-threaded$(bindgen_ready || echo ", while wasm-bindgen-cli $WASM_BINDGEN compiles from source") (first time several minutes, then under a minute)"
  bindgen_ready || start_job "wasm-bindgen-cli" bash scripts/setup.sh --bindgen-only
  start_job "threaded wasm" bash scripts/build-wasm.sh threads --compile-only --progress
  start_job "single-threaded wasm" bash scripts/build-wasm.sh st --compile-only --progress
  wait_jobs
  bash scripts/build-wasm.sh all --bindgen-only
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
