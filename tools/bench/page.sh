#!/usr/bin/env bash
# The explorer page's speed in headless Chromium, as a person meets it: the first answer on
# screen after a cold load (target: at most 300 ms) and each move's answer after a click on the
# move table (at most 50 ms), over loopback, measured in the page itself (navigation and
# resource timings), min / median / max of 10 loads and 80 moves.
#
# Usage: tools/bench/page.sh [FILE.pgn[.zst|.bz2|.gz]]
# Default file: ../shared/datasets/players.pgn.zst. The database is built once beside the build
# (target/report-bench-db, shared with tools/bench/report.sh) when missing, or taken from
# TABIYA_BENCH_DB.
set -euo pipefail
cd "$(dirname "$0")/../.."
input=${1:-../shared/datasets/players.pgn.zst}
tools/ci/bootstrap.sh
cargo build --release --quiet --bin tabiya
source tools/bench/players-db.sh
db=$(bench_db report "$input")
TABIYA_PAGE_DB="$db" cargo test --release --quiet --test tests -- --ignored --exact --nocapture page::page_timings 2>&1 |
  grep -E '^(page timings|  )'
