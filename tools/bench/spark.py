"""The Spark build and scans against the CLI's, side by side in one run, on a standalone
cluster on this machine (tabiya.spark.cluster): for 1 and for 2 workers of one core each, the
build's wall time (from the cluster's start, from the session's start, and the job alone) and
each stage's, the shuffle's bytes a
game, each executor's peak memory (JVM and Python), a check that the database holds the CLI's
bytes; then a pattern scan on the 2-worker cluster against `tabiya search`.

Usage (from the repository root, in a venv with tabiya and pyspark installed; see
tools/ci/python-test.sh):
    python tools/bench/spark.py [PGN] [--pattern EXPR] [--work DIR] [--scans-only | --builds-only]
                                [--split-bytes N]... [--skip-twins]
PGN (a file or a folder) defaults to ../shared/datasets/players.pgn.zst. Each --split-bytes
builds with that split_bytes, side by side in the same run (1: a split task a file).
--skip-twins: the CLI's ingest and the builds skip twins."""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CLI = ROOT / "target" / "release" / "tabiya"
DIGEST = ROOT / "target" / "release" / "examples" / "db-digest"


def digest(db: Path) -> str:
    return subprocess.run([str(DIGEST), str(db)], capture_output=True, text=True, check=True).stdout


def rest(spark, path: str):
    app = spark.sparkContext.applicationId
    with urllib.request.urlopen(f"{spark.sparkContext.uiWebUrl}/api/v1/applications/{app}/{path}") as answer:
        return json.load(answer)


def cluster_run(workers: int, work: Path, run):
    """Starts a cluster of ``workers`` workers and a session, runs ``run(spark)``, and returns
    its answer, the wall time from the cluster's start, the shuffle's bytes written and each
    executor's peak memory (MiB)."""
    from pyspark.sql import SparkSession

    from tabiya.spark.cluster import SMALL_NODE_JAVA_OPTIONS, LocalCluster, wait_for_executors

    started = time.perf_counter()
    with LocalCluster(workers=workers, root=str(work / f"cluster-{workers}")) as cluster:
        # The cluster is up when every worker has registered with the master (its log says so).
        logs = [cluster.root / f"worker-{n}.log" for n in range(workers)]
        deadline = time.monotonic() + 120
        while not all("registered with master" in log.read_text(errors="replace") for log in logs):
            if time.monotonic() > deadline:
                raise TimeoutError("the workers did not register with the master")
            time.sleep(0.1)
        cluster_up = time.perf_counter()
        spark = (
            SparkSession.builder.master(cluster.url)
            .appName(f"tabiya bench, {workers} workers")
            .config("spark.executor.memory", "1g")
            .config("spark.executor.cores", "1")
            .config("spark.executorEnv.RAYON_NUM_THREADS", "1")
            # Small nodes: the JIT's first tier only (see tabiya.spark.cluster).
            .config("spark.driver.extraJavaOptions", SMALL_NODE_JAVA_OPTIONS)
            .config("spark.executor.extraJavaOptions", SMALL_NODE_JAVA_OPTIONS)
            .config("spark.executor.processTreeMetrics.enabled", "true")
            .config("spark.ui.showConsoleProgress", "false")
            .getOrCreate()
        )
        spark.sparkContext.setLogLevel("ERROR")
        wait_for_executors(spark, workers)
        ready = time.perf_counter()
        answer = run(spark)
        done = time.perf_counter()
        shuffle = sum(stage.get("shuffleWriteBytes", 0) for stage in rest(spark, "stages"))
        peaks = []
        for executor in rest(spark, "allexecutors"):
            if executor["id"] == "driver":
                continue
            peak = executor.get("peakMemoryMetrics") or {}
            peaks.append({"jvm_mib": round(peak.get("ProcessTreeJVMRSSMemory", 0) / 2**20),
                          "python_mib": round(peak.get("ProcessTreePythonRSSMemory", 0) / 2**20)})
        spark.stop()
    return answer, {"wall_s": round(done - started, 2), "job_s": round(done - ready, 2),
                    "startup_s": round(ready - started, 2), "session_start_s": round(ready - cluster_up, 2),
                    "shuffle_bytes": shuffle, "executors": peaks}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("pgn", nargs="?", default=str(ROOT.parent / "shared" / "datasets" / "players.pgn.zst"))
    parser.add_argument("--pattern", default="pin(B, n, k)")
    parser.add_argument("--work", default=str(ROOT / "target" / "spark-bench"))
    parser.add_argument("--scans-only", action="store_true", help="only the scans, on WORK/cli of an earlier run")
    parser.add_argument("--builds-only", action="store_true", help="only the builds, no scans")
    parser.add_argument("--split-bytes", type=int, action="append",
                        help="build with this split_bytes (repeat to compare several in one run; 1: a task a file)")
    parser.add_argument("--skip-twins", action="store_true", help="the ingest and the builds skip twins")
    args = parser.parse_args()
    from tabiya.spark import build, report, search

    work = Path(args.work)
    results = {}
    if not args.scans_only:
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(parents=True)
        started = time.perf_counter()
        twins = ["--skip-twins"] if args.skip_twins else []
        ingest = json.loads(subprocess.run([str(CLI), "ingest", "--db", str(work / "cli"), "--json", *twins, args.pgn],
                                           capture_output=True, text=True, check=True).stdout)
        results["cli_ingest_s"] = round(time.perf_counter() - started, 2)
        results["games"] = ingest["gamesRead"]
    splits = args.split_bytes or [None]
    for workers, split_bytes in [] if args.scans_only else [(w, b) for w in (1, 2) for b in splits]:
        games, want = results["games"], digest(work / "cli")
        db = work / f"spark-{workers}"
        options = {} if split_bytes is None else {"split_bytes": split_bytes}
        if args.skip_twins:
            options["skip_twins"] = True
        summary, measured = cluster_run(workers, work, lambda spark: build(spark, [args.pgn], str(db), **options))
        measured["stages_s"] = summary["stages"]
        measured["split_tasks"] = summary["splitTasks"]
        measured["shuffle_bytes_per_game"] = round(measured["shuffle_bytes"] / games)
        measured["same_bytes_as_cli"] = digest(db) == want
        measured["ratio_to_cli"] = round(measured["wall_s"] / results["cli_ingest_s"], 2)
        # What a user of a running cluster waits for: the session's start and the job.
        session_and_job = measured["session_start_s"] + measured["job_s"]
        measured["session_and_job_ratio_to_cli"] = round(session_and_job / results["cli_ingest_s"], 2)
        name = f"build_{workers}_workers" + ("" if split_bytes is None else f"_split_{split_bytes}")
        results[name] = measured
        shutil.rmtree(db)
    if args.builds_only:
        print(json.dumps(results, indent=2))
        return

    started = time.perf_counter()
    cli = json.loads(subprocess.run([str(CLI), "search", "--db", str(work / "cli"), "--pattern", args.pattern,
                                     "--json"], capture_output=True, text=True, check=True).stdout)
    results["cli_search_s"] = round(time.perf_counter() - started, 2)
    found, measured = cluster_run(2, work, lambda spark: search(spark, str(work / "cli"), args.pattern))
    for answer in (found, cli):
        answer.pop("elapsedMs")
    found.pop("tasks")
    measured["same_answer_as_cli"] = found == cli
    measured["ratio_to_cli"] = round(measured["wall_s"] / results["cli_search_s"], 2)
    results["search_2_workers"] = measured

    started = time.perf_counter()
    cli = json.loads(subprocess.run([str(CLI), "report", "database", "--db", str(work / "cli"), "--format", "json"],
                                    capture_output=True, text=True, check=True).stdout)
    results["cli_report_s"] = round(time.perf_counter() - started, 2)
    found, measured = cluster_run(2, work, lambda spark: report(spark, str(work / "cli")))
    measured["same_answer_as_cli"] = found == cli
    measured["ratio_to_cli"] = round(measured["wall_s"] / results["cli_report_s"], 2)
    results["report_2_workers"] = measured
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
