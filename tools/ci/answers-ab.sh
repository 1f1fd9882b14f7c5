#!/usr/bin/env bash
# Compares the answers of two tabiya binaries, for a change that must not change any answer (a
# restructuring): each binary ingests the same games into its own database, then both answer
# the same questions (query, games, searches, reports, exports, twins, players, stats, key,
# psqt derive, verify, and the HTTP API of `serve`), and every answer is compared byte for
# byte (JSON with its timings and timestamps taken out). Names every difference, and then
# exits 1.
#
#   tools/ci/answers-ab.sh OLD_BINARY NEW_BINARY [PGN] [GAMES]
#
# PGN defaults to the players collection beside the checkout (../shared/datasets, or
# TABIYA_DATASETS), of which the first GAMES games (default 4000) are taken; it may be plain
# or .zst. With KEEP=DIR, the answers are left in DIR to read.
set -euo pipefail
cd "$(dirname "$0")/../.."
old="$(realpath "$1")"
new="$(realpath "$2")"
datasets=${TABIYA_DATASETS:-../shared/datasets}
pgn="${3:-$datasets/players.pgn.zst}"
games="${4:-4000}"
[ -x "$old" ] && [ -x "$new" ] || { echo "answers-ab: usage: $0 OLD_BINARY NEW_BINARY [PGN] [GAMES]" >&2; exit 1; }
[ -f "$pgn" ] || { echo "answers-ab: no file $pgn" >&2; exit 1; }
for tool in zstd curl python3; do
  command -v "$tool" >/dev/null || { echo "answers-ab: needs the $tool command" >&2; exit 1; }
done
work="$(mktemp -d)"
pids=()
trap 'for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; rm -rf "$work"' EXIT

# The first GAMES games of the collection, cut at a game's first tag (the reader stops early:
# the decompressor's broken pipe is no failure).
case "$pgn" in
  *.zst) zstd -dc "$pgn" 2>/dev/null || true ;;
  *) cat "$pgn" || true ;;
esac | python3 -c '
import sys
wanted, count, out = int(sys.argv[1]), 0, sys.stdout.buffer
previous_blank = True
for line in sys.stdin.buffer:
    if line.startswith(b"[Event ") and previous_blank:
        count += 1
        if count > wanted:
            break
    out.write(line)
    previous_blank = line.strip() == b""
' "$games" >"$work/games.pgn"
grep -q '^\[Event ' "$work/games.pgn" || { echo "answers-ab: no games read from $pgn" >&2; exit 1; }
# A second file repeating some games, for duplicates and twins.
head -c 200000 "$work/games.pgn" >"$work/again.pgn"

# JSON with what differs between two runs taken out (timings, timestamps, paths).
normalise() {
  python3 -c '
import json, sys
# Timings, timestamps and paths; and bytes on disk, which background compactions vary.
VOLATILE = {"elapsedMs", "elapsed_ms", "started", "finished", "seconds", "path", "db", "inputs", "bytes", "sizes"}
def clean(value):
    if isinstance(value, dict):
        return {k: clean(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [clean(v) for v in value]
    return value
text = sys.stdin.read()
try:
    print(json.dumps(clean(json.loads(text)), indent=1))
except ValueError:
    sys.stdout.write(text)
'
}

# The questions, asked of database DB by binary BIN, answers under OUT.
ask() {
  local bin="$1" db="$2" out="$3"
  mkdir -p "$out"
  local n=0
  run() {
    n=$((n + 1))
    local name
    name=$(printf '%03d' "$n")
    { "$bin" "$@" 2>"$out/$name.err" || echo "exit status $?"; } | normalise >"$out/$name.out"
    echo "$*" >"$out/$name.cmd"
  }
  local pos=("--moves" "1. e4" "--moves" "1. d4 Nf6 2. c4 e6" "--moves" "1. e4 c5 2. Nf3 d6 3. d4 cxd4 4. Nxd4 Nf6 5. Nc3 a6"
    "--fen" "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3" "--moves" "")
  local filters=("" "--since 2010" "--min-rating 2600" "--speed classical,rapid" "--until 2005-06 --max-rating 2700"
    "--result 1-0" "--eco B20-B99" "--event olympiad" "--min-plies 60")
  local i
  for ((i = 0; i < ${#pos[@]}; i += 2)); do
    local f
    for f in "${filters[@]}"; do
      # shellcheck disable=SC2086
      run query --db "$db" "${pos[i]}" "${pos[i + 1]}" --json $f
    done
  done
  run query --db "$db" --moves "1. e4 e5" --player "Carlsen" --json
  run query --db "$db" --moves "1. e4" --player "Kasparov" --color white --json
  run query --db "$db" --moves "1. e4" --max-moves 30 --top 15 --recent 15 --json --since 2000
  run games --db "$db" --moves "1. e4 c5" --json
  run games --db "$db" --moves "1. e4 c5" --sort date --limit 50 --json
  run games --db "$db" --moves "1. d4" --sort rating --offset 10 --json --since 2000
  run games --db "$db" --moves "1. e4" --not "rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq -" --json
  run games --db "$db" --moves "1. e4 e5 2. Nf3" --pgn --limit 5
  run games --db "$db" --pattern "doublecheck" --json
  run games --db "$db" --pattern "seq(Bh7 and check and btm, Ng5 and btm, 3)" --json
  run search --db "$db" --material "KRPvKR" --json
  run search --db "$db" --material "KRP*vKRP*" --json --min-elo 2500
  run search --db "$db" --material "KQvKQ" --json --player "Carlsen"
  run search --db "$db" --pattern "pin(B, n, k)" --json
  run search --db "$db" --pattern "check and btm" --json --since 2010
  run search --db "$db" --pattern "Pa-h7 and wtm" --material "KRP*vKR*" --json
  run report opening --db "$db" --moves "1. e4 c5" --format json
  run report opening --db "$db" --moves "1. d4" --format json --versus "--min-rating 2600"
  run report player --db "$db" --format json "Carlsen"
  run report database --db "$db" --format json
  run export book --db "$db" -o "$out/book.bin" --min-games 2
  run export positions --db "$db" --material "KRPvKR" --format csv -o "$out/rooks.csv"
  run export positions --db "$db" --min-games 3 --format epd -o "$out/common.epd"
  run twins --db "$db" --json
  run players search --db "$db" --json "Kasparov, Garry"
  run players search --db "$db" --json "Polgar"
  run stats --db "$db" --json
  run psqt derive --db "$db" --json --sample 2000
  run verify --db "$db" --json
  run key "8/8/8/4k3/8/8/4P3/4K3 w - -"
  for report in opening player database; do
    local target=(--moves "1. e4 e5")
    [ "$report" = player ] && target=("Anand")
    [ "$report" = database ] && target=()
    run report "$report" --db "$db" "${target[@]}" --format csv -o "$out/$report-csv"
  done
  # Files written: compared as bytes.
  (cd "$out" && find . -type f \( -name '*.bin' -o -name '*.csv' -o -name '*.epd' \) -print0 | sort -z |
    xargs -0 sha256sum >files.sha256)
}

# The HTTP API: BIN serving DB, the same requests.
serve_and_ask() {
  local bin="$1" db="$2" out="$3"
  mkdir -p "$out"
  "$bin" serve --db "$db" --bind 127.0.0.1:0 >"$out/serve.log" 2>&1 &
  local pid=$!
  pids+=("$pid")
  local port=""
  for _ in $(seq 1 100); do
    port=$(grep -o '127.0.0.1:[0-9]*' "$out/serve.log" | head -1 | cut -d: -f2 || true)
    [ -n "$port" ] && break
    sleep 0.1
  done
  [ -n "$port" ] || { echo "answers-ab: $bin serve did not start" >&2; cat "$out/serve.log" >&2; exit 1; }
  local n=0 path
  while read -r path; do
    n=$((n + 1))
    local name
    name="$out/http-$(printf '%03d' "$n")"
    curl -s -o "$name.body" -w '%{http_code}\n' "http://127.0.0.1:$port$path" >"$name.out"
    normalise <"$name.body" >>"$name.out"
    rm "$name.body"
  done <<'EOF'
/masters?play=e2e4
/masters?play=e2e4,c7c5&since=2010&ratings=2500
/masters?fen=rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR%20b%20KQkq%20-%200%201&moves=20&topGames=10
/lichess?play=d2d4,g8f6&speeds=classical,rapid&ratings=2200,2500
/lichess?play=e2e4,e7e5,g1f3&history=true
/player?player=Carlsen&color=white&play=e2e4
/games?play=e2e4,c7c5&perPage=30&sort=date
/games?pattern=doublecheck&perPage=10
/material?material=KRPvKR&minElo=2500
/material?material=KRP*vKR*&since=2005
/pattern?q=pin(B,%20n,%20k)&limit=15
/pattern?q=check%20and%20btm&material=KQ*R*B*N*P*vKQ*R*B*N*P*
/report/opening?play=e2e4,c7c5&format=json
/report/database?format=json
/stats
/players?name=Kasparov
/players?prefix=kas
/masters/pgn/5
/game/7
/move?fen=rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR%20w%20KQkq%20-%200%201&uci=e2e4
/games.pgn?play=d2d4,d7d5&perPage=5
/book.bin?play=e2e4&minGames=3
/health
/masters?play=e2e5
/masters?fen=not-a-fen
/nothing-here
EOF
  kill "$pid" 2>/dev/null || true
}

for side in old new; do
  bin=$old
  [ "$side" = new ] && bin=$new
  echo "answers-ab: $side binary: ingest and answers" >&2
  "$bin" ingest --db "$work/$side-db" "$work/games.pgn" >/dev/null 2>&1
  "$bin" ingest --db "$work/$side-db" "$work/again.pgn" >/dev/null 2>&1
  "$bin" openings import --db "$work/$side-db" datasets/openings-sample.tsv >/dev/null 2>&1 || true
  ask "$bin" "$work/$side-db" "$work/$side"
  serve_and_ask "$bin" "$work/$side-db" "$work/$side"
done

# Paths inside answers (the database's directory) differ by their side's name.
sed -i "s#$work/old#$work/SIDE#g" "$work"/old/*.out "$work"/old/*.err 2>/dev/null || true
sed -i "s#$work/new#$work/SIDE#g" "$work"/new/*.out "$work"/new/*.err 2>/dev/null || true
# And the messages' timings ("... in 0.1 s").
sed -i -E 's/ in [0-9]+(\.[0-9]+)? s\b/ in N s/g' "$work"/old/*.err "$work"/new/*.err 2>/dev/null || true
answers=$(find "$work/old" -name '*.out' | wc -l)
if [ -n "${KEEP:-}" ]; then
  mkdir -p "$KEEP" && cp -r "$work/old" "$work/new" "$KEEP/"
fi
if diff -r -q -x 'serve.log' -x '*.cmd' "$work/old" "$work/new" >"$work/differences"; then
  echo "answers-ab: $answers answers and $(wc -l <"$work/old/files.sha256") files identical"
else
  echo "answers-ab: answers differ:" >&2
  cat "$work/differences" >&2
  while read -r _ a _ b _; do
    echo "--- $a" >&2
    [ -f "${a%.out}.cmd" ] && cat "${a%.out}.cmd" >&2
    diff "$a" "$b" | head -20 >&2 || true
  done <"$work/differences"
  exit 1
fi
