#!/usr/bin/env bash
# Every construct of the pattern grammar, each searched over the whole database and timed
# against a plain single-thread pgn-reader + shakmaty replay of the same PGN
# (tools/examples/replay.rs), run right before it (pairs, so that both see the same machine
# load): the ratio pattern/replay is what a search costs next to merely walking the games. The
# target is 1.0 or less for every pattern, including those needing move generation (mate,
# stalemate) and those matching almost every position (wtm, not check), where the games of
# every match are collected.
#
# Usage: tools/bench/pattern-grammar.sh [FILE.pgn[.zst|.bz2|.gz]] [ROUNDS]
# Default file: ../shared/datasets/players.pgn.zst. The database is built once beside the build
# (target/pattern-bench-db) when missing, or taken from TABIYA_BENCH_DB. Prints one line a
# pattern (the median ratio of ROUNDS pairs, default 1) and the largest ratio.
set -euo pipefail
cd "$(dirname "$0")/../.."
input=${1:-../shared/datasets/players.pgn.zst}
rounds=${2:-1}
[ -f "$input" ] || { echo "pattern-grammar-bench: no file $input" >&2; exit 1; }
tools/ci/bootstrap.sh
cargo build --release --quiet --bin tabiya --example replay
source tools/bench/players-db.sh
db=$(bench_db pattern "$input")

# pattern<TAB>extra options: every test, every designator form, every comparison, the pawn
# structure tests, and/or/not/parentheses, the search options.
patterns=$(cat <<'LIST'
Ne5
[Qq]d1-8
Pa-h7
B[a4,b5,c6]
_e4 and _d4
Aa1-8 and aa1-8
wtm
btm
check
doublecheck
mate
stalemate
attacks(Q, k)
attacks(N, [qr])
pin(B, n, k)
pin([RQ], a, [kq])
count(P) = 8
count(p) == 6
count(N) != 2
count(_) < 40
count(A) <= 3
count(a) > 14
count(P) >= 7
passed(Pa-h6)
isolated(p)
doubled(P)
(Ke1 or Kg1) and not (check or Pe4)
not check
not (wtm and [Qq]a-h1-8)
pin(B, n, k)	--flip-colours
check	--side black
wtm	--material KRPPPPvKRPPP
LIST
)

now() { date +%s.%N; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
worst=0
while IFS=$'\t' read -r pattern options; do
  ratios=()
  for round in $(seq "$rounds"); do
    t0=$(now)
    target/release/examples/replay "$input" >/dev/null
    t1=$(now)
    # shellcheck disable=SC2086 # the options are words
    target/release/tabiya search --db "$db" --pattern "$pattern" $options --json --limit 20 >"$work/found.json"
    t2=$(now)
    ratios+=("$(python3 -c "print(($t2 - $t1) / ($t1 - $t0))")")
    replay=$(python3 -c "print(f'{$t1 - $t0:.2f}')")
    search=$(python3 -c "print(f'{$t2 - $t1:.2f}')")
  done
  ratio=$(printf '%s\n' "${ratios[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR + 1) / 2)]}')
  worst=$(python3 -c "print(max($worst, $ratio))")
  python3 - "$work/found.json" "$pattern $options" "$search" "$replay" "$ratio" <<'PY'
import json, sys
found = json.load(open(sys.argv[1]))
print(f"{sys.argv[2]:<40} {sys.argv[3]:>6} s  replay {sys.argv[4]:>5} s  ratio {float(sys.argv[5]):.2f}  "
      f"{found['positions']:>10,} positions {found['games']:>8,} games")
PY
done <<<"$patterns"
echo "largest ratio (search / replay): $(python3 -c "print(f'{$worst:.2f}')")"
