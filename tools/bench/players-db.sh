# Sourced by the end-to-end benchmark scripts (not run on its own).
# bench_db NAME INPUT: prints the database to measure, $TABIYA_BENCH_DB when set, else
# target/NAME-bench-db, built from INPUT when it is missing or of an older format (once: later
# runs reuse it).
bench_db() {
  local name=$1 input=$2
  local db=${TABIYA_BENCH_DB:-target/$name-bench-db}
  # A default database this build cannot read (an older format) is built again.
  if [ -z "${TABIYA_BENCH_DB:-}" ] && [ -f "$db/CURRENT" ] \
    && target/release/tabiya stats --db "$db" 2>&1 >/dev/null | grep -q "database format"; then
    echo "$name-bench: $db is of another format; building it again" >&2
    rm -rf "$db"
  fi
  if [ ! -f "$db/CURRENT" ]; then
    [ -f "$input" ] || { echo "$name-bench: no file $input" >&2; return 1; }
    echo "$name-bench: building $db from $input" >&2
    target/release/tabiya ingest --db "$db" "$input" >/dev/null
  fi
  echo "$db"
}
