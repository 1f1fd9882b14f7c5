#!/usr/bin/env bash
# Builds a database from the same PGN with an earlier revision of tabiya and with this checkout,
# and compares their contents family by family (tools/examples/db-digest.rs). A refactoring
# that keeps the on-disk format prints the same digests twice and exits 0.
#
#   tools/ci/format-digest.sh [REVISION [PGN]]     (defaults: HEAD~1, datasets/sample.pgn)
set -euo pipefail
cd "$(dirname "$0")/../.."
rev="${1:-HEAD~1}"
pgn="$(realpath "${2:-datasets/sample.pgn}")"
work="$(mktemp -d)"
trap 'git worktree remove --force "$work/base" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

# The earlier revision builds into the same target directory: only tabiya itself recompiles.
git worktree add --detach "$work/base" "$rev" >/dev/null
CARGO_TARGET_DIR="$PWD/target" cargo build --release --quiet --manifest-path "$work/base/Cargo.toml"
cp target/release/tabiya "$work/tabiya-base"
cargo build --release --quiet --bin tabiya --example db-digest
cp target/release/tabiya "$work/tabiya-new"

"$work/tabiya-base" ingest --db "$work/base-db" "$pgn" >/dev/null
"$work/tabiya-new" ingest --db "$work/new-db" "$pgn" >/dev/null
target/release/examples/db-digest "$work/base-db" >"$work/base.txt"
target/release/examples/db-digest "$work/new-db" >"$work/new.txt"
echo "$rev:"; cat "$work/base.txt"
echo "this checkout:"; cat "$work/new.txt"
if diff -q "$work/base.txt" "$work/new.txt" >/dev/null; then
  echo "identical contents"
else
  echo "contents differ" >&2
  exit 1
fi
