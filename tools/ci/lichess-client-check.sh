#!/usr/bin/env bash
# Points a real lichess API client, the Python `berserk` package (pinned), at `tabiya serve` and
# asks what lichess clients ask: the masters and lichess explorers (with history=True, as Python
# sends it) and the player explorer, blocking and streamed. Prints what came back.
#
# Usage: tools/ci/lichess-client-check.sh [DB]   (default: a database of the embedded sample)
# Needs python3 with venv and network access to PyPI; the venv lives in target/berserk-venv.
set -euo pipefail
cd "$(dirname "$0")/../.."
tools/ci/bootstrap.sh
cargo build --release --quiet --bin tabiya
bin=target/release/tabiya
db=${1:-}
if [ -z "$db" ]; then
  db=target/lichess-client-check-db
  rm -rf "$db"
  "$bin" ingest --db "$db" datasets/sample.pgn >/dev/null
  "$bin" openings import --db "$db" datasets/openings-sample.tsv >/dev/null
fi
venv=target/berserk-venv
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install --quiet 'berserk==0.14.0'
log=$(mktemp)
"$bin" serve --db "$db" --bind 127.0.0.1:0 >"$log" &
server=$!
trap 'kill $server 2>/dev/null; rm -f "$log"' EXIT
for _ in $(seq 100); do grep -q 'listening on' "$log" && break; sleep 0.1; done
url=$(sed -n 's/^listening on //p' "$log" | head -n 1)
player=${PLAYER:-$("$bin" report database --db "$db" --format json | python3 -c 'import json, sys; print(json.load(sys.stdin)["players"][0]["name"])')}
"$venv/bin/python" - "$url" "$player" <<'PY'
import sys

import berserk
import requests

url, player = sys.argv[1], sys.argv[2]
explorer = berserk.Client(session=requests.Session(), explorer_url=url).opening_explorer
masters = explorer.get_masters_games(play=["e2e4"])
print("masters after e4:", masters["white"], masters["draws"], masters["black"], [m["san"] for m in masters["moves"][:4]])
lichess = explorer.get_lichess_games(play=["e2e4"], history=True)
print("lichess after e4, history:", len(lichess["history"]), "months, last", lichess["history"][-1] if lichess["history"] else None)
for color in ["white", "black"]:
    answer = explorer.get_player_games(player=player, color=color, recent_games=2, history=True)
    print(f"player {player!r} as {color}:", answer["white"], answer["draws"], answer["black"],
          [(m["san"], m["averageOpponentRating"], m["performance"]) for m in answer["moves"][:3]],
          len(answer["recentGames"]), "recent games")
    lines = list(explorer.stream_player_games(player=player, color=color))
    print(f"  streamed: {len(lines)} line(s), queuePosition {lines[-1]['queuePosition']}")
PY
