#!/usr/bin/env bash
# Chess960 against standard chess, side by side in one run: COUNT random games of each kind
# from the same generator (tools/examples/random-games.rs: Chess960 games from start positions
# drawn uniformly, standard games from the initial position; the same move choices, castling
# half the time it may), each file ingested with tools/bench/ingest.sh's rounds (ingest against
# a plain replay of the same file, alternating); then the database's bytes a game. The two
# ratios ingest/replay should match: Chess960's keys, moves and castling cost what standard
# chess's do. Then a material and a pattern search on each database, in turn, ROUNDS times:
# Chess960's searches pass over its space with the same skips a standard pattern scan makes.
#
# Usage: tools/bench/chess960.sh [COUNT] [ROUNDS]      (defaults 100000 and 3)
set -euo pipefail
cd "$(dirname "$0")/../.."
count=${1:-100000}
rounds=${2:-3}
tools/ci/bootstrap.sh
cargo build --release --quiet --bin tabiya --example replay --example random-games
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for kind in chess960 standard; do
  target/release/examples/random-games "$count" "$kind" >"$work/$kind.pgn"
done
for kind in chess960 standard; do
  echo "== $kind: $count random games"
  SIZE=0 tools/bench/ingest.sh "$work/$kind.pgn" "$rounds"
  target/release/tabiya ingest --db "$work/db-$kind" "$work/$kind.pgn" >/dev/null
  echo "database bytes a game: $(( $(du -sb "$work/db-$kind" | cut -f1) / count ))"
done
# Seconds of one search: `tabiya search` on the database of KIND with its variant.
search_seconds() {
  local kind=$1
  shift
  local started ended
  started=$(date +%s.%N)
  target/release/tabiya search --db "$work/db-$kind" --variant "$kind" --json "$@" >"$work/found.json"
  ended=$(date +%s.%N)
  echo "$started $ended" | awk '{printf "%.3f", $2 - $1}'
}
for search in "--material KRP*vKRP*" "--pattern check"; do
  declare -A seconds=([chess960]="" [standard]="")
  for _ in $(seq "$rounds"); do
    for kind in chess960 standard; do
      # shellcheck disable=SC2086 # the search's words
      seconds[$kind]+="$(search_seconds "$kind" $search) "
    done
  done
  for kind in chess960 standard; do
    echo "search $search ($kind): $(echo "${seconds[$kind]}" | tr ' ' '\n' | sed '/^$/d' | sort -n | paste -sd' ') s"
  done
done
