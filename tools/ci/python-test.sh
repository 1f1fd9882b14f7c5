#!/usr/bin/env bash
# The Python package's tests, as a new user meets the package: a fresh virtual environment,
# `pip install ./python` (maturin builds the extension into the shared target/ directory, so
# RocksDB is not compiled again), the pinned test dependencies, then pytest, whose tests compare
# every answer with the command line's, and whose Spark tests start a standalone cluster on
# 127.0.0.1 (pyspark from PyPI, pinned: its 456 MB wheel is kept under target/spark/).
#
# Usage: tools/ci/python-test.sh [pytest arguments]
set -euo pipefail
cd "$(dirname "$0")/../.."

python=${PYTHON:-python3}
venv=target/python-test-venv
step() { echo "tabiya: $*" >&2; }

# The CLI the answers are compared with, and the digest tool the Spark tests compare databases
# with (an example: `cargo test` builds it, with the build of the tests, which tools/ci/test.sh
# has made already).
cargo build --release --quiet
cargo test --release --quiet --no-run 2>/dev/null
pyspark=pyspark==4.3.0
wheels=target/spark/wheels
if ! compgen -G "$wheels/pyspark-4.3.0-*.whl" >/dev/null; then
  step "downloading $pyspark (456 MB, once) into $wheels"
  "$python" -m pip wheel --quiet --disable-pip-version-check --no-deps -w "$wheels" "$pyspark"
fi
step "Python package: a fresh venv at $venv, pip install ./python"
rm -rf "$venv"
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r python/tests/requirements.txt
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --find-links "$wheels" "$pyspark"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check ./python
step "Python tests (pytest)"
# Run from the tests folder, so that `import tabiya` finds the installed package, not ./python.
cd python/tests
TABIYA_BIN="$PWD/../../target/release/tabiya" "../../$venv/bin/python" -m pytest -q -p no:cacheprovider "$@"
