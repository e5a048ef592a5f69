#!/usr/bin/env bash
# The Python package's tests (python/), on a machine with CPython 3 (with pip and venv), cargo
# and PyPI: a virtual environment in the target directory with maturin, NumPy and pytest, the
# package built by maturin as a wheel and installed in it, the CLI the round trip compares with,
# then pytest. Everything it writes goes under the target directory (ignored): no tracked file
# changes. Arguments go to pytest (e.g. -k cancel).
set -euo pipefail
cd "$(dirname "$0")/.."

target=${CARGO_TARGET_DIR:-target}
mkdir -p "$target"
target=$(cd "$target" && pwd)
venv=$target/python-venv
wheels=$target/python-wheels

python=${PYTHON:-python3}
if [ ! -x "$venv/bin/python" ]; then
  # A Python without its venv module (Debian's, without python3-venv) gets virtualenv from PyPI.
  "$python" -m venv "$venv" 2>/dev/null || {
    rm -rf "$venv"
    "$python" -m pip install --quiet --user virtualenv && "$python" -m virtualenv --quiet "$venv"
  }
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "maturin>=1.9,<2" "numpy>=1.21" "pytest>=7"

# The wheel is built in the dev profile at opt-level 2, the settings of the workspace's test
# profile, in the same target dir and with the core's default features, so that cargo can reuse
# the core and the dependencies `cargo test` built (scripts/test.sh runs it first) instead of
# building them again, and the solver runs optimised.
rm -rf "$wheels"
CARGO_PROFILE_DEV_OPT_LEVEL=2 "$venv/bin/maturin" build --quiet --profile dev \
  --manifest-path python/Cargo.toml --interpreter "$venv/bin/python" --out "$wheels"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps "$wheels"/memplan-*.whl

# The CLI of the same workspace, for the round-trip tests.
cli=$target/debug/memplan
[ -x "$cli" ] || cargo build --quiet -p memplan --bin memplan

cd python
MEMPLAN_CLI=$cli PYTHONDONTWRITEBYTECODE=1 "$venv/bin/python" -m pytest -p no:cacheprovider -q tests "$@"
