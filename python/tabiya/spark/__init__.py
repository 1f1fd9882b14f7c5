"""tabiya on Apache Spark: build a database from PGN collections too big for one machine's
ingest, and run whole-database pattern searches, with the answers of a single-machine run.

From Python, with a SparkSession (any cluster manager: standalone, YARN, Kubernetes)::

    from pyspark.sql import SparkSession
    from tabiya.spark import build, psqt_derive, report, search

    spark = SparkSession.builder.master("spark://head:7077").getOrCreate()
    summary = build(spark, ["/shared/lichess/2026-10.pgn.zst"], "/shared/tabiya-db")
    found = search(spark, "/shared/tabiya-db", "pin(B, n, k)")
    tables = psqt_derive(spark, "/shared/tabiya-db", since="2020")
    overview = report(spark, "/shared/tabiya-db", plies=10)

or from the shell: ``python -m tabiya.spark build --master spark://head:7077 DB INPUT...`` and
``python -m tabiya.spark search --master spark://head:7077 --pattern EXPR DB`` (and
``psqt-derive``, ``report``).

Every executor needs the ``tabiya`` package (``pip install tabiya`` on each node), and every
path (the database, the work directory, inputs given as paths) must be the same file on the
driver and on every executor: a shared mount (NFS, a cluster file system), or for searches a
copy of the database at the same path on each node. Inputs may also be URLs of any file system
Spark's Hadoop configuration reads (``hdfs://``, ``s3a://``).
"""

from .build import build
from .scan import psqt_derive, report, search

__all__ = ["build", "psqt_derive", "report", "search"]
