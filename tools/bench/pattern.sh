#!/usr/bin/env bash
# Pattern search end to end, side by side in one run (ROUNDS alternating rounds):
#   (a) `tabiya search --pattern` over every distinct position of the database, for a placement
#       question (a white rook on the 7th rank, the black king on the 8th);
#   (b) the same kind of question restricted to a common material (KRPPPPvKRPPP), which scans
#       only that material's key ranges;
#   (c) a plain single-thread pgn-reader + shakmaty replay of the PGN (tools/examples/replay.rs):
#       what any tool that walks the games pays before evaluating anything;
#   (d) pgn-extract (Debian package) answering the same two questions by scanning the PGN: the
#       placement as a FENPattern, the material with -y; games found are compared (pgn-extract
#       with -D drops its own duplicates, tabiya stores each distinct game once; pgn-extract does
#       not test a game's final position, tabiya does).
# Prints each time, the ratios replay/(a) and pgn-extract/tabiya, and the games each found.
#
# Usage: tools/bench/pattern.sh [FILE.pgn[.zst|.bz2|.gz]] [ROUNDS]
# Default file: ../shared/datasets/players.pgn.zst (403k master games). The database is built
# once beside the build (target/pattern-bench-db) when missing, or taken from TABIYA_BENCH_DB.
set -euo pipefail
cd "$(dirname "$0")/../.."
input=${1:-../shared/datasets/players.pgn.zst}
rounds=${2:-3}
[ -f "$input" ] || { echo "pattern-bench: no file $input" >&2; exit 1; }
command -v zstd >/dev/null || { echo "pattern-bench: needs the zstd command (apt-get install zstd)" >&2; exit 1; }
pgn_extract=$(command -v pgn-extract || echo /usr/games/pgn-extract)
if [ ! -x "$pgn_extract" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "pattern-bench: installing pgn-extract (apt-get install pgn-extract)" >&2
    apt-get install -y -qq pgn-extract >/dev/null || { apt-get update -qq && apt-get install -y -qq pgn-extract >/dev/null; }
  else
    echo "pattern-bench: needs pgn-extract (as root: apt-get install pgn-extract)" >&2
    exit 1
  fi
fi
tools/ci/bootstrap.sh
cargo build --release --quiet --bin tabiya --example replay
source tools/bench/players-db.sh
db=$(bench_db pattern "$input")
# pgn-extract reads plain text: decompress once, beside the build.
plain="target/$(basename "$input" | sed 's/\.\(zst\|bz2\|gz\)$//')"
if [ ! -f "$plain" ]; then
  case "$input" in
    *.zst) zstd -dc "$input" >"$plain" ;;
    *.bz2) bzip2 -dc "$input" >"$plain" ;;
    *.gz) gzip -dc "$input" >"$plain" ;;
    *) cp "$input" "$plain" ;;
  esac
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo 'FENPattern "*k*/*R*/*/*/*/*/*/*"' >"$work/placement.txt"
# A leading 0: the material need not last (pgn-extract's default asks for 2 half-moves).
echo '0 rp4 rp3' >"$work/material.txt"

now() { date +%s.%N; }
for round in $(seq "$rounds"); do
  t0=$(now)
  target/release/tabiya search --db "$db" --pattern 'ka-h8 and Ra-h7' --json --limit 1 >"$work/full.$round.json"
  t1=$(now)
  target/release/tabiya search --db "$db" --pattern 'wtm or btm' --material KRPPPPvKRPPP --json --limit 1 \
    >"$work/material.$round.json"
  t2=$(now)
  target/release/examples/replay "$input" >"$work/replay.$round.json"
  t3=$(now)
  "$pgn_extract" -s -D -t"$work/placement.txt" -o "$work/placement.pgn" "$plain" 2>/dev/null || true
  t4=$(now)
  "$pgn_extract" -s -D -y"$work/material.txt" -o "$work/material.pgn" "$plain" 2>/dev/null || true
  t5=$(now)
  python3 - "$work" "$round" "$t0" "$t1" "$t2" "$t3" "$t4" "$t5" <<'PY'
import json, sys
work, r = sys.argv[1], sys.argv[2]
t = [float(x) for x in sys.argv[3:]]
full, material, replay, pe_place, pe_mat = (t[i + 1] - t[i] for i in range(5))
fj = json.load(open(f"{work}/full.{r}.json"))
mj = json.load(open(f"{work}/material.{r}.json"))
count = lambda path: sum(1 for line in open(path, errors="replace") if line.startswith("[Event "))
print(f"round {r}: placement scan {full:.2f} s ({fj['scanned']:,} positions, {fj['games']:,} games); "
      f"material {material * 1000:.0f} ms ({mj['scanned']:,} positions, {mj['games']:,} games); "
      f"replay {replay:.2f} s; pgn-extract placement {pe_place:.1f} s ({count(f'{work}/placement.pgn'):,} games), "
      f"material {pe_mat:.1f} s ({count(f'{work}/material.pgn'):,} games)")
print(f"  ratios: replay / placement scan {replay / full:.2f}; pgn-extract / tabiya: placement {pe_place / full:.1f}x, "
      f"material {pe_mat / material:.0f}x")
PY
done
