#!/usr/bin/env bash
# Statistics reports end to end, as a user runs them: `tabiya report opening` after 1. e4 c5
# (target: at most 1 s) and after 1. e4 (at most 3 s) in HTML, `tabiya report player` and
# `tabiya report database` (at most 60 s), each run RUNS times (min / median / max wall time),
# with the number of games each report covered. Every report reads every game it counts:
# nothing is sampled.
#
# Usage: tools/bench/report.sh [FILE.pgn[.zst|.bz2|.gz]] [RUNS] [PLAYER]
# Default file: ../shared/datasets/players.pgn.zst. The database is built once beside the build
# (target/report-bench-db) when missing, or taken from TABIYA_BENCH_DB.
set -euo pipefail
cd "$(dirname "$0")/../.."
input=${1:-../shared/datasets/players.pgn.zst}
runs=${2:-5}
player=${3:-carlsen}
tools/ci/bootstrap.sh
cargo build --release --quiet --bin tabiya
source tools/bench/players-db.sh
db=$(bench_db report "$input")
bin=target/release/tabiya

# Times `tabiya ARGS... -o FILE` RUNS times; prints min/median/max.
timed() {
  local label=$1; shift
  local times=()
  for _ in $(seq 1 "$runs"); do
    local start=$EPOCHREALTIME
    "$bin" "$@" >/dev/null
    times+=("$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { print b - a }')")
  done
  printf '%s\n' "${times[@]}" | sort -n | awk -v label="$label" '
    { t[NR] = $1 } END { printf "  %-28s min %.2f s, median %.2f s, max %.2f s\n", label, t[1], t[int((NR + 1) / 2)], t[NR] }'
}

games() {
  "$bin" report "$@" --format json | python3 -c "import json, sys; d = json.load(sys.stdin); print(d['subsets'][0]['overview']['games'] if 'subsets' in d else d['overview']['games'] if 'overview' in d else d['totals']['games'])"
}

echo "== $db, $runs runs each"
for moves in "1. e4 c5" "1. e4"; do
  echo "opening after $moves: $(games opening --db "$db" --moves "$moves") games"
  timed "opening $moves" report opening --db "$db" --moves "$moves" -o target/report-bench.html
done
echo "player $player: $(games player --db "$db" "$player") games"
timed "player $player" report player --db "$db" "$player" -o target/report-bench.html
echo "database: $(games database --db "$db") games"
timed "database" report database --db "$db" -o target/report-bench.html
