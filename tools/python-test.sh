#!/usr/bin/env bash
# The Python package's tests, as a new user meets the package: a fresh virtual environment,
# `pip install ./python` (maturin builds the extension into the shared target/ directory, so
# RocksDB is not compiled again), the pinned test dependencies, then pytest, whose tests compare
# every answer with the command line's.
#
# Usage: tools/python-test.sh [pytest arguments]
set -euo pipefail
cd "$(dirname "$0")/.."

python=${PYTHON:-python3}
venv=target/python-test-venv
step() { echo "tabiya: $*" >&2; }

cargo build --release --quiet
step "Python package: a fresh venv at $venv, pip install ./python"
rm -rf "$venv"
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r python/tests/requirements.txt
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check ./python
step "Python tests (pytest)"
# Run from the tests folder, so that `import tabiya` finds the installed package, not ./python.
cd python/tests
TABIYA_BIN="$PWD/../../target/release/tabiya" "../../$venv/bin/python" -m pytest -q -p no:cacheprovider "$@"
