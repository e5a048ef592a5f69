#!/usr/bin/env bash
# Installs what memplan's playground and tests need and the machine lacks; quick when all is there.
#   scripts/setup.sh            Rust wasm target, pinned nightly, wasm-bindgen-cli, npm packages
#   scripts/setup.sh --browser  the same plus Debian's Chromium for the browser tests
#   --no-bindgen / --bindgen-only  all but wasm-bindgen-cli / only it (scripts/play.sh installs it
#                                  while the wasm compiles, which does not need it)
# Only cargo/rustup, Node.js/npm and (for --browser) apt are assumed.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/versions.sh

browser=no
bindgen=yes
rest=yes
for arg in "$@"; do
  case $arg in
    --browser) browser=yes ;;
    --no-bindgen) bindgen=no ;;
    --bindgen-only) rest=no ;;
    *) echo "setup.sh: unknown argument $arg (usage: setup.sh [--browser] [--no-bindgen|--bindgen-only])" >&2; exit 2 ;;
  esac
done

# wasm-bindgen-cli from source, the slowest part of a first start. Without its default features:
# they are the TLS stack (rustls and ring, C and assembly) that only its test runner's downloads
# use. At opt-level 1: 204 s of CPU instead of 244 s at the default 3, and it binds the playground's
# modules to the same bytes in the same time (0.3 s). Not --locked: its lock file names a
# webpki-roots version this registry does not serve.
install_bindgen() {
  if ! wasm-bindgen --version 2>/dev/null | grep -q " $WASM_BINDGEN\$"; then
    echo "== setup: wasm-bindgen-cli $WASM_BINDGEN (compiles from source: a few minutes the first time)"
    CARGO_PROFILE_RELEASE_OPT_LEVEL=1 cargo install wasm-bindgen-cli --version "$WASM_BINDGEN" --no-default-features
  fi
}
if [ $rest = no ]; then
  install_bindgen
  exit 0
fi

need() { command -v "$1" >/dev/null || { echo "memplan needs $1 ($2)" >&2; exit 2; }; }
need cargo "https://rustup.rs"
need rustup "https://rustup.rs"
need npm "Node.js 20 or later"

if ! rustup target list --installed --toolchain stable | grep -qx wasm32-unknown-unknown; then
  echo "== setup: wasm32 target for stable"
  rustup target add wasm32-unknown-unknown --toolchain stable
fi
for component in clippy rustfmt; do
  if ! rustup component list --installed --toolchain stable 2>/dev/null | grep -q "^$component"; then
    echo "== setup: $component for stable (the tests lint the code)"
    rustup component add "$component" --toolchain stable
  fi
done
if ! rustup run "$NIGHTLY" rustc --version >/dev/null 2>&1 \
   || ! rustup target list --installed --toolchain "$NIGHTLY" | grep -qx wasm32-unknown-unknown \
   || ! rustup component list --installed --toolchain "$NIGHTLY" | grep -q '^rust-src'; then
  echo "== setup: $NIGHTLY with rust-src and the wasm32 target (threaded build)"
  rustup toolchain install "$NIGHTLY" --profile minimal -c rust-src -t wasm32-unknown-unknown
fi
[ $bindgen = no ] || install_bindgen
if [ $browser = yes ] && ! command -v chromium >/dev/null; then
  echo "== setup: Debian's Chromium for the browser tests"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq chromium >/dev/null
fi
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "== setup: npm packages"
  npm ci --no-audit --no-fund
fi
