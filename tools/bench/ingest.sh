#!/usr/bin/env bash
# End-to-end ingest benchmark, side by side in one run:
#   (a) `tabiya ingest` into a fresh database, games/s (all cores), and its peak memory;
#   (b) a plain single-thread pgn-reader + shakmaty replay of the same file
#       (tools/examples/replay.rs), the floor for any indexer;
# for ROUNDS alternating rounds, then the ratio a/b per round, and the database's bytes on disk
# after ingest (which ends with a full compaction) divided by the size of the same PGN
# compressed with `zstd -19`.
#
# Usage: tools/bench/ingest.sh [FILE.pgn[.zst|.bz2|.gz]] [ROUNDS]
# Default file: ../shared/datasets/players.pgn.zst (403k master games). TABIYA_THREADS=N sets
# ingest's worker threads (for how it scales); SIZE=0 skips the size comparison (zstd -19 of a
# large file takes minutes), e.g. for the comment-heavy file tools/data/commented-pgn.py writes.
set -euo pipefail
cd "$(dirname "$0")/../.."
input=${1:-../shared/datasets/players.pgn.zst}
rounds=${2:-3}
[ -f "$input" ] || { echo "ingest-bench: no file $input" >&2; exit 1; }
command -v zstd >/dev/null || { echo "ingest-bench: needs the zstd command (apt-get install zstd)" >&2; exit 1; }
command -v /usr/bin/time >/dev/null || { echo "ingest-bench: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
tools/ci/bootstrap.sh
cargo build --release --quiet --bin tabiya --example replay
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for round in $(seq "$rounds"); do
  target/release/examples/replay "$input" >"$work/replay.$round.json"
  rm -rf "$work/db"
  /usr/bin/time -v -o "$work/time.$round.txt" \
    target/release/tabiya ingest --json --db "$work/db" "$input" >"$work/ingest.$round.json" 2>"$work/ingest.$round.err"
  python3 - "$work" "$round" <<'PY'
import json, sys
work, r = sys.argv[1], sys.argv[2]
a = json.load(open(f"{work}/ingest.{r}.json"))
b = json.load(open(f"{work}/replay.{r}.json"))
print(f"round {r}: ingest {a['gamesPerSecond']:,.0f} games/s ({a['elapsedSeconds']:.1f} s), "
      f"replay {b['gamesPerSecond']:,.0f} games/s ({b['seconds']:.1f} s), ratio {a['gamesPerSecond'] / b['gamesPerSecond']:.3f}")
PY
done

if [ "${SIZE:-1}" = 0 ]; then
  python3 - "$work" "$rounds" <<'PY'
import json, statistics, sys
work, rounds = sys.argv[1], int(sys.argv[2])
ratios = [json.load(open(f"{work}/ingest.{r}.json"))["gamesPerSecond"] / json.load(open(f"{work}/replay.{r}.json"))["gamesPerSecond"]
          for r in range(1, rounds + 1)]
print(f"speed ratio ingest/replay: min {min(ratios):.3f}, median {statistics.median(ratios):.3f}, max {max(ratios):.3f}")
PY
  exit 0
fi
db_bytes=$(du -sb "$work/db" | cut -f1)
# zstd -19 of the decompressed PGN: slow, so kept beside the build, keyed by the input's name and size.
cache="target/zstd19-$(basename "$input")-$(stat -c %s "$input").size"
if [ ! -f "$cache" ]; then
  case "$input" in
    *.zst) cat_cmd=(zstd -dc) ;;
    *.bz2) cat_cmd=(bzip2 -dc) ;;
    *.gz) cat_cmd=(gzip -dc) ;;
    *) cat_cmd=(cat) ;;
  esac
  "${cat_cmd[@]}" "$input" | zstd -19 -T0 -q -c | wc -c >"$cache"
fi
zstd19=$(cat "$cache")
python3 - "$work" "$rounds" "$db_bytes" "$zstd19" <<'PY'
import json, statistics, sys
work, rounds, db, z = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
ratios = []
for r in range(1, rounds + 1):
    a = json.load(open(f"{work}/ingest.{r}.json"))
    b = json.load(open(f"{work}/replay.{r}.json"))
    ratios.append(a["gamesPerSecond"] / b["gamesPerSecond"])
last = json.load(open(f"{work}/ingest.{rounds}.json"))
print(f"speed ratio ingest/replay: min {min(ratios):.3f}, median {statistics.median(ratios):.3f}, max {max(ratios):.3f}")
peaks = []
for r in range(1, rounds + 1):
    for line in open(f"{work}/time.{r}.txt"):
        if "Maximum resident set size" in line:
            peaks.append(int(line.split()[-1]) / 1024)
print(f"ingest peak memory: {min(peaks):,.0f}-{max(peaks):,.0f} MB")
print(f"games read {last['gamesRead']:,}, indexed {last['indexed']:,}, duplicates {last['duplicates']:,}, "
      f"skipped {last['skippedTotal']:,}; distinct positions {last['database']['distinctPositions']:,}")
print(f"database {db:,} bytes; zstd -19 PGN {z:,} bytes; size ratio {db / z:.2f}")
PY
echo "per column family (tabiya stats):"
target/release/tabiya stats --db "$work/db" | grep bytes
