#!/usr/bin/env bash
# The whole test suite, as CI runs it: the build dependencies (tools/ci/bootstrap.sh), then the
# formatting, the lints and the documentation without a warning, then every test: Rust's, then
# the Python package's (tools/ci/python-test.sh: pip install in a fresh venv, pytest).
#
# The tests that read the shared real-data sets (../shared/datasets beside the checkout, or
# TABIYA_DATASETS) are ignored unless the sets are there; then they run too. With CI set, a
# missing datasets directory is an error. page::page_timings is a measurement, not a test:
# tools/bench/page.sh runs it.
#
# Usage: tools/ci/test.sh [extra arguments for the test binaries, e.g. a test name filter]
set -euo pipefail
cd "$(dirname "$0")/../.."
tools/ci/bootstrap.sh

step() { echo "tabiya: $*" >&2; }

step "formatting (cargo fmt --check)"
cargo fmt --all --check
# --release and --all-targets: the lints and the docs reuse the test build's dependencies
# (RocksDB's C++ is built once per profile and feature set).
step "lints (cargo clippy -D warnings)"
cargo clippy --release --workspace --all-targets --quiet -- -D warnings
step "documentation (cargo doc, warnings denied)"
# The library's crates (the Python binding documents itself for Python, in its docstrings).
RUSTDOCFLAGS="-D warnings" cargo doc --release --no-deps --quiet --workspace --exclude tabiya-python

datasets=${TABIYA_DATASETS:-../shared/datasets}
if [ -d "$datasets" ]; then
  step "tests, with those of the shared datasets at $datasets"
  cargo test --release --workspace -- --include-ignored --skip page::page_timings "$@"
else
  if [ -n "${CI:-}" ]; then
    echo "tabiya: CI needs the shared datasets at $datasets (or TABIYA_DATASETS)" >&2
    exit 1
  fi
  step "tests; no shared datasets at $datasets: the tests that read them are ignored"
  cargo test --release --workspace -- "$@"
fi

tools/ci/python-test.sh
