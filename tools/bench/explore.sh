#!/usr/bin/env bash
# End-to-end position-search benchmark on a database of a PGN collection:
#   (a) HTTP throughput: `tabiya serve` on loopback under wrk (bounded: fixed connections and
#       duration) over a realistic mix of /masters lookups — positions after 4-8 plies, 20-40
#       plies and 60 plies of games spread over the collection; then the opening mix (8
#       requests in turn: the initial position, 1 to 10 plies deep, one with a date filter;
#       target ≥ 10,000 requests/s) and one position alone;
#   (b) finding one position: `tabiya query` (whole process) against `pgn-extract` scanning the
#       same PGN for the same position (a FEN tag criterion), ROUNDS alternating rounds, and the
#       ratio of the medians.
# In-process lookup latencies and material search times are in `cargo bench --bench lookup`.
#
# Usage: [BASELINE=OTHER-TABIYA] tools/bench/explore.sh [FILE.pgn[.zst]] [ROUNDS]
# BASELINE: another build (of the same format) whose mixes are run beside this build's.
# Default file: ../shared/datasets/players.pgn.zst. Needs wrk and pgn-extract
# (apt-get install wrk pgn-extract), zstd and python3.
set -euo pipefail
cd "$(dirname "$0")/../.."
input=${1:-../shared/datasets/players.pgn.zst}
rounds=${2:-5}
[ -f "$input" ] || { echo "explore-bench: no file $input" >&2; exit 1; }
pgn_extract=$(command -v pgn-extract || echo /usr/games/pgn-extract)
for tool in wrk "$pgn_extract" zstd python3; do
  command -v "$tool" >/dev/null || { echo "explore-bench: needs $tool (apt-get install wrk pgn-extract zstd python3)" >&2; exit 1; }
done
tools/ci/bootstrap.sh
cargo build --release --quiet --bin tabiya
tabiya=target/release/tabiya

# The database and the plain PGN, kept beside the build, keyed by the input's name and size.
tag="$(basename "$input")-$(stat -c %s "$input")"
db=target/explore-bench-db-$tag
plain=target/explore-bench-$tag.pgn
if [ ! -f "$plain" ]; then
  case "$input" in
    *.zst) zstd -dc "$input" >"$plain" ;;
    *) cp "$input" "$plain" ;;
  esac
fi
if ! $tabiya stats --db "$db" >/dev/null 2>&1; then
  rm -rf "$db"
  $tabiya ingest --db "$db" "$input" >/dev/null
fi
work=$(mktemp -d)
server=
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$work"' EXIT

# The request mix: UCI lines of every 100th of the first 100,000 games.
head -c 200000000 "$plain" | "$pgn_extract" -Wuci --notags -s -w 100000 --nocomments --novars \
  --nomovenumbers --noresults 2>/dev/null | grep . >"$work/lines.txt" || true
python3 - "$work" <<'PY'
import sys
work = sys.argv[1]
lines = [l.split() for l in open(f"{work}/lines.txt")][:100000:100]
with open(f"{work}/paths.txt", "w") as out:
    for n, moves in enumerate(lines):
        for ply in (2 + n % 7, 20 + n % 21, 60):
            if len(moves) >= ply:
                out.write("/masters?play=" + ",".join(moves[:ply]) + "&topGames=4\n")
PY
echo "request mix: $(wc -l <"$work/paths.txt") paths"
cat >"$work/mix.lua" <<EOF
local paths = {}
for line in io.lines("$work/paths.txt") do paths[#paths + 1] = line end
request = function() return wrk.format("GET", paths[math.random(#paths)]) end
EOF

# Starts `BIN serve` on the database; sets server and addr.
serve() {
  "$1" serve --db "$db" --bind 127.0.0.1:0 >"$work/serve.out" &
  server=$!
  for _ in $(seq 100); do grep -q listening "$work/serve.out" && break; sleep 0.1; done
  addr=$(sed -n 's/^listening on //p' "$work/serve.out")
}

serve "$tabiya"
# The mix must answer 200 before it is worth loading.
ok=$(python3 - "$addr" "$work/paths.txt" <<'PY'
import sys, urllib.request
addr, paths = sys.argv[1], [l.strip() for l in open(sys.argv[2])][:50]
print(sum(urllib.request.urlopen(addr + p).status == 200 for p in paths))
PY
)
echo "sanity: $ok of 50 requests answered 200"
wrk -t1 -c32 -d15s --latency -s "$work/mix.lua" "$addr" | sed 's/^/  /'
# The opening mix: the requests an explorer's users send most, 8 in turn: the initial position,
# positions 1 to 10 plies deep, and one with a date filter (every game of the position read).
cat >"$work/opening.lua" <<'EOF2'
local paths = {
  "/masters?topGames=4",
  "/masters?play=e2e4&topGames=4",
  "/masters?play=e2e4,c7c5&topGames=4",
  "/masters?play=d2d4,g8f6,c2c4&topGames=4",
  "/masters?play=e2e4,e7e5,g1f3,b8c6&topGames=4",
  "/masters?play=e2e4,c7c5,g1f3,d7d6,d2d4,c5d4&topGames=4",
  "/masters?play=e2e4,c7c5,g1f3,d7d6,d2d4,c5d4,f3d4,g8f6,b1c3,a7a6&topGames=4",
  "/masters?play=d2d4,d7d5,c2c4&since=2010&topGames=4",
}
local i = 0
request = function() i = i % #paths + 1; return wrk.format("GET", paths[i]) end
EOF2
echo "opening mix (8 requests in turn):"
wrk -t1 -c32 -d15s --latency -s "$work/opening.lua" "$addr" | sed 's/^/  /'
echo "one position (after 1. e4 c5):"
wrk -t1 -c32 -d15s --latency "$addr/masters?play=e2e4,c7c5&topGames=4" | sed 's/^/  /'
kill "$server"; server=

# With BASELINE=another tabiya binary (reading the same database): both mixes again, this
# build and the baseline alternating (2 pairs, 8 s each), requests/s side by side.
if [ -n "${BASELINE:-}" ]; then
  rate() { wrk -t1 -c32 -d8s -s "$2" "$1" | sed -n 's/^Requests\/sec: *//p'; }
  for pair in 1 2; do
    for bin in "$tabiya" "$BASELINE"; do
      serve "$bin"
      echo "pair $pair, $bin: mix $(rate "$addr" "$work/mix.lua") requests/s, opening mix $(rate "$addr" "$work/opening.lua") requests/s"
      kill "$server"; wait "$server" 2>/dev/null || true; server=
    done
  done
fi

# One middlegame position: after 1. e4 c5 2. Nf3 d6 3. d4 cxd4 4. Nxd4 Nf6 5. Nc3 a6 (Najdorf).
fen="rnbqkb1r/1p2pppp/p2p1n2/8/3NP3/2N5/PPP2PPP/R1BQKB1R w KQkq - 0 6"
printf 'FEN "%s"\n' "$fen" >"$work/tags.txt"
for round in $(seq "$rounds"); do
  start=$(date +%s.%N)
  $tabiya query --db "$db" --fen "$fen" --json >"$work/query.json"
  mid=$(date +%s.%N)
  "$pgn_extract" -s -t"$work/tags.txt" -o"$work/found.pgn" "$plain" 2>/dev/null
  end=$(date +%s.%N)
  echo "$start $mid $end" >>"$work/times.txt"
done
python3 - "$work" <<'PY'
import json, statistics, sys
work = sys.argv[1]
rows = [list(map(float, l.split())) for l in open(f"{work}/times.txt")]
tabiya = sorted(m - s for s, m, e in rows)
extract = sorted(e - m for s, m, e in rows)
games = json.load(open(f"{work}/query.json"))["games"]
found = open(f"{work}/found.pgn", errors="replace").read().count("[Event ")
fmt = lambda t: f"min {t[0]*1e3:.1f} ms, median {statistics.median(t)*1e3:.1f} ms, max {t[-1]*1e3:.1f} ms"
print(f"tabiya query: {games} games; {fmt(tabiya)}")
print(f"pgn-extract:  {found} games (no duplicate removal); {fmt(extract)}")
print(f"ratio pgn-extract / tabiya (medians): {statistics.median(extract) / statistics.median(tabiya):,.0f}")
PY
