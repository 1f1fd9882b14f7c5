#!/usr/bin/env bash
# Piece-square tables end to end:
#   (a) `tabiya psqt derive` over every distinct position of the database (occupancy and scores
#       exact; the fit on its default sample), timed (target: at most 2 minutes on the players
#       collection); its loss beside material alone's;
#   (b) `tabiya psqt factorise` of PeSTO's published tables (the seed's test subject) at n = 4,
#       8, 12 and 16 components, default options: masked RMS error, the real-valued rank-n
#       floor and the time (target: at most 7.5 centipawns at n = 12, in at most 60 s), for
#       SEEDS seeds; and the seed's own mutations alone (--random-only) beside them.
#
# Usage: tools/bench/psqt.sh [FILE.pgn[.zst|.bz2|.gz]] [SEEDS]
# Default file: ../shared/datasets/players.pgn.zst; tables: ../shared/datasets/psqt/pesto.csv.
# The database is built once beside the build (target/psqt-bench-db) when missing, or taken
# from TABIYA_BENCH_DB.
set -euo pipefail
cd "$(dirname "$0")/../.."
input=${1:-../shared/datasets/players.pgn.zst}
seeds=${2:-3}
pesto=${PESTO:-../shared/datasets/psqt/pesto.csv}
[ -f "$input" ] || { echo "psqt-bench: no file $input" >&2; exit 1; }
[ -f "$pesto" ] || { echo "psqt-bench: no tables $pesto (set PESTO)" >&2; exit 1; }
tools/ci/bootstrap.sh
cargo build --release --quiet --bin tabiya
source tools/bench/players-db.sh
db=$(bench_db psqt "$input")

echo "== derive: $db"
start=$(date +%s.%N)
target/release/tabiya psqt derive --db "$db" --json -o target/psqt-derived.json
end=$(date +%s.%N)
python3 - "$start" "$end" <<'PY'
import json, sys
d = json.load(open("target/psqt-derived.json"))
f = d["fit"]
print(f"  wall {float(sys.argv[2]) - float(sys.argv[1]):.1f} s: {d['positions']} distinct positions, "
      f"{d['occurrences']} occurrences; fit on {f['positions']} positions ({f['occurrences']} occurrences): "
      f"loss {f['loss']:.5f} per game, material alone {f['materialLoss']:.5f}")
PY

report() {
  python3 -c '
import json, sys
d = json.load(sys.stdin)
r = d["iterations"][-1]
print("  %s: n=%d rms %.2f (floor %.2f), max error %d, %d generations + %d polished children, %.1f s" % (
    sys.argv[1], r["components"], r["maskedRms"], r["rankBoundRms"], r["maxError"], r["generations"],
    r["polishedChildren"], r["elapsedMs"] / 1000))
' "$1"
}
# Each n is its own run: the final phase (polished children) runs at the last n only.
for n in 4 8 12 16; do
  echo "== factorise: $pesto, $n components"
  for seed in $(seq 1 "$seeds"); do
    target/release/tabiya psqt factorise --input "$pesto" --components "$n" --seed "$seed" --json | report "seed $seed"
  done
  for seed in $(seq 1 "$seeds"); do
    target/release/tabiya psqt factorise --input "$pesto" --components "$n" --seed "$seed" --random-only --json \
      | report "seed $seed, seed mutations only"
  done
done
