#!/usr/bin/env bash
# Sequence queries end to end, side by side in one run (ROUNDS alternating rounds): three
# `tabiya games --pattern 'seq(...)'` queries (a scan for the first step's distinct positions,
# then only their games replayed) against a plain single-thread pgn-reader + shakmaty replay of
# the PGN (tools/examples/replay.rs), which is what a tool that walks every game pays before
# evaluating anything. Prints each time, the games and candidates of each query, and the ratio
# query / replay (target <= 1.0).
#
# Usage: tools/bench/sequence.sh [FILE.pgn[.zst|.bz2|.gz]] [ROUNDS]
# Default file: ../shared/datasets/players.pgn.zst. The database is built once beside the build
# (target/sequence-bench-db) when missing, or taken from TABIYA_BENCH_DB.
set -euo pipefail
cd "$(dirname "$0")/../.."
input=${1:-../shared/datasets/players.pgn.zst}
rounds=${2:-3}
[ -f "$input" ] || { echo "sequence-bench: no file $input" >&2; exit 1; }
tools/ci/bootstrap.sh
cargo build --release --quiet --bin tabiya --example replay
source tools/bench/players-db.sh
db=$(bench_db sequence "$input")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sequences=(
  'seq(Bh7 and check and btm, Ng5 and check and btm, 3)'
  'seq(Pa-h7, count(Q) >= 2, 4)'
  'seq(count([Qq]) >= 1 and count([RrBbNn]) = 0, count([Qq]) = 0 and count([Rr]) >= 1, 20)'
)
now() { date +%s.%N; }
for round in $(seq "$rounds"); do
  times=()
  for i in "${!sequences[@]}"; do
    t0=$(now)
    target/release/tabiya games --db "$db" --pattern "${sequences[$i]}" --json --limit 1 >"$work/seq.$i.json"
    t1=$(now)
    times+=("$t0:$t1")
  done
  t0=$(now)
  target/release/examples/replay "$input" >"$work/replay.json"
  t1=$(now)
  replay="$t0:$t1"
  python3 - "$work" "$round" "$replay" "${times[@]}" -- "${sequences[@]}" <<'PY'
import json, sys
args = sys.argv[1:]
span = lambda pair: float(pair.split(":")[1]) - float(pair.split(":")[0])
work, r, replay = args[0], args[1], span(args[2])
split = args.index("--")
times, names = [span(t) for t in args[3:split]], args[split + 1:]
print(f"round {r}: plain replay {replay:.2f} s")
for i, (t, name) in enumerate(zip(times, names)):
    total = json.load(open(f"{work}/seq.{i}.json"))["total"]
    print(f"  {name}: {t:.2f} s, {total:,} games; ratio query / replay {t / replay:.2f}")
PY
done
