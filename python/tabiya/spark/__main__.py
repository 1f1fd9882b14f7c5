"""``python -m tabiya.spark``: a build or a pattern search on a Spark cluster.

    python -m tabiya.spark build [--master URL] [--work DIR] DB INPUT...
    python -m tabiya.spark search [--master URL] --pattern EXPR [--material SIG] [FILTERS] DB
    python -m tabiya.spark psqt-derive [--master URL] [--sample N] [--seed S] [FILTERS] DB
    python -m tabiya.spark report [--master URL] [--plies N] [--top N] DB

Without ``--master``, the master is spark-submit's when run under it, else ``$SPARK_MASTER``,
else ``local[*]``. FILTERS are the CLI's game filters (``--since``, ``--min-elo``, ``--player``,
``--event``...). Each prints the JSON of its CLI command (``ingest --json``, ``search --json``,
``psqt derive --json``, ``report database --format json``)."""

from __future__ import annotations

import argparse
import json
import os
import sys


def _session(master, name):
    from pyspark.sql import SparkSession

    # JSON on stdout, tabiya's messages on stderr: no progress bars between them.
    builder = SparkSession.builder.appName(name).config("spark.ui.showConsoleProgress", "false")
    # Under spark-submit the master is set already.
    if master or "PYSPARK_GATEWAY_PORT" not in os.environ:
        builder = builder.master(master or os.environ.get("SPARK_MASTER", "local[*]"))
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("WARN")
    return spark


#: The CLI's game filters but a player: (option, type).
_FILTERS = [("since", str), ("until", str), ("speed", str), ("min-rating", int), ("max-rating", int),
            ("min-elo", int), ("max-elo", int), ("event", str), ("site", str), ("result", str), ("eco", str),
            ("date-from", str), ("date-to", str), ("min-plies", int)]
#: The player filters (a search takes them; psqt-derive, as the CLI's, does not).
_PLAYER_FILTERS = [("player", str), ("color", str), ("opponent", str)]


def _positive(text: str) -> int:
    """An argument that must be a whole number of at least 1."""
    try:
        number = int(text)
    except ValueError:
        number = 0
    if number < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of at least 1")
    return number


def _min_prefix(text: str) -> int:
    """--min-prefix: digits making a number from 10 to 65535, as the CLI's."""
    if not (text.isascii() and text.isdigit() and 10 <= int(text) <= 65535):
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number from 10 to 65535")
    return int(text)


def _add_filters(command, filters):
    for name, kind in filters:
        command.add_argument(f"--{name}", type=kind, help=f"the CLI's --{name} filter")


def _filters(args) -> dict:
    """The filters given, as keyword arguments."""
    names = (name.replace("-", "_") for name, _ in _FILTERS + _PLAYER_FILTERS)
    return {name: getattr(args, name) for name in names if getattr(args, name, None) is not None}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tabiya.spark", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    build = commands.add_parser("build", help="build (or append to) a database from PGN files and directories")
    build.add_argument("db", help="the database directory (created, or appended to)")
    build.add_argument(
        "inputs",
        nargs="+",
        help="PGN files (.pgn, .pgn.zst, .pgn.bz2, .pgn.gz) and directories: paths, or URLs Spark reads",
    )
    build.add_argument("--work", help="a directory the driver and every executor share (default: DB.spark-work)")
    build.add_argument("--partitions", type=int, help="prepare tasks (default: 4 x the default parallelism)")
    build.add_argument(
        "--split-bytes",
        type=_positive,
        default=None,
        help="bytes of input files a split task reads at most (default 134,217,728, less to give every core"
        " two tasks; a larger file is a task alone)",
    )
    build.add_argument(
        "--range-occurrences",
        type=_positive,
        help="position occurrences a key-range task holds on average (default 8,388,608; fewer: more range tasks)",
    )
    build.add_argument(
        "--skip-twins",
        action="store_true",
        help="skip the twins of stored games and of games read before them (the CLI's --skip-twins)",
    )
    build.add_argument(
        "--min-prefix",
        type=_min_prefix,
        default=None,
        help="with --skip-twins: fewest plies of a game whose moves start its twin's (default 20)",
    )
    search = commands.add_parser("search", help="a pattern search over the whole database")
    search.add_argument("db", help="the database directory, at the same path on every executor")
    search.add_argument("--pattern", required=True, help="the pattern (the CLI's grammar)")
    search.add_argument("--material", help="only positions of this material signature")
    search.add_argument("--side", choices=["white", "black"], help="only positions with this side to move")
    search.add_argument("--flip-colours", action="store_true", help="also match the pattern with colours swapped")
    search.add_argument("--limit", type=int, default=20, help="positions listed (default 20)")
    search.add_argument("--tasks", type=int, help="tasks (default: 4 x the default parallelism)")
    _add_filters(search, _FILTERS + _PLAYER_FILTERS)
    psqt = commands.add_parser("psqt-derive", help="piece-square statistics and tables (tabiya psqt derive)")
    psqt.add_argument("db", help="the database directory, at the same path on every executor")
    psqt.add_argument("--sample", type=int, default=2_000_000, help="positions the fit uses (0: all)")
    psqt.add_argument("--seed", type=int, default=1, help="seed of the sample and the fit")
    psqt.add_argument("--epochs", type=int, help="passes of the fit over the sample")
    _add_filters(psqt, _FILTERS)
    psqt.add_argument("--tasks", type=int, help="tasks (default: 4 x the default parallelism)")
    overview = commands.add_parser("report", help="the database report (tabiya report database)")
    overview.add_argument("db", help="the database directory, at the same path on every executor")
    overview.add_argument("--plies", type=int, default=10, help="most common positions for plies 1 to N (default 10)")
    overview.add_argument("--top", type=int, default=30, help="openings and players listed (default 30)")
    overview.add_argument("--tasks", type=int, help="tasks (default: 4 x the default parallelism)")
    for command in (build, search, psqt, overview):
        command.add_argument("--master", help="the Spark master URL (e.g. spark://host:7077)")
    args = parser.parse_args(argv)
    if args.command == "build" and args.min_prefix is not None and not args.skip_twins:
        parser.error("--min-prefix needs --skip-twins")

    from ..errors import TabiyaError

    spark = _session(args.master, f"tabiya {args.command}")
    try:
        if args.command == "build":
            from .build import build as run_build

            answer = run_build(
                spark, args.inputs, args.db, work=args.work, partitions=args.partitions,
                range_occurrences=args.range_occurrences, skip_twins=args.skip_twins,
                **({} if args.split_bytes is None else {"split_bytes": args.split_bytes}),
                **({} if args.min_prefix is None else {"min_prefix": args.min_prefix}),
            )
            for game in answer["rejected"]:
                print(f"tabiya: skipped game {game['game']} of {game['file']} (line {game['line']}): "
                      f"{game['reason']}: {game['detail']}", file=sys.stderr)
            for error in answer["readErrors"]:
                print(f"tabiya: {error}", file=sys.stderr)
        elif args.command == "psqt-derive":
            from .scan import psqt_derive

            answer = psqt_derive(spark, args.db, sample=args.sample, seed=args.seed, epochs=args.epochs,
                                 tasks=args.tasks, **_filters(args))
        elif args.command == "report":
            from .scan import report

            answer = report(spark, args.db, plies=args.plies, top=args.top, tasks=args.tasks)
        else:
            from .scan import search as run_search

            answer = run_search(spark, args.db, args.pattern, material=args.material, side=args.side,
                                flip_colours=args.flip_colours, limit=args.limit, tasks=args.tasks, **_filters(args))
    except TabiyaError as err:
        print(f"tabiya: {err}", file=sys.stderr)
        return 1
    finally:
        spark.stop()
    json.dump(answer, sys.stdout)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
