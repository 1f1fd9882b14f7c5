"""A Spark standalone cluster on this machine: a master and workers, each a separate JVM
started with pyspark's own ``spark-class``, bound to 127.0.0.1. For trying tabiya.spark out,
for its tests and for its benchmark; a real cluster is started with Spark's own scripts.

    with LocalCluster(workers=2) as cluster:
        spark = SparkSession.builder.master(cluster.url).getOrCreate()

Needs Java 17 or later on the PATH (or JAVA_HOME)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Optional


# Java options for the JVMs of a cluster of small nodes (a few cores each): the JIT's first
# tier only, and the serial collector. On a 2-core machine the optimising compiler (C2) of the
# master's, the workers', the driver's and the executors' JVMs took a fifth of the CPU of a
# build whose work is in tabiya's Rust code (docs/PERFORMANCE.md, "Spark"). LocalCluster
# starts its daemons with them; a session passes them to its driver and executors as
# ``spark.driver.extraJavaOptions`` and ``spark.executor.extraJavaOptions``.
SMALL_NODE_JAVA_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class LocalCluster:
    """A standalone master and ``workers`` workers of ``cores`` cores and ``memory`` each, their
    logs and work directories under ``root`` (a new temporary directory by default). The
    daemons' JVMs run with ``SPARK_DAEMON_JAVA_OPTS`` from the environment, else with
    ``SMALL_NODE_JAVA_OPTIONS``."""

    def __init__(self, workers: int = 2, *, cores: int = 1, memory: str = "1200m", root: Optional[str] = None):
        import pyspark

        self.home = Path(pyspark.__file__).parent
        self.root = Path(root or tempfile.mkdtemp(prefix="tabiya-spark-"))
        self.root.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.url = f"spark://127.0.0.1:{self.port}"
        # Executors run this interpreter, where tabiya is installed.
        self.env = dict(os.environ, SPARK_HOME=str(self.home), SPARK_LOCAL_IP="127.0.0.1",
                        SPARK_LOG_DIR=str(self.root / "logs"), PYSPARK_PYTHON=sys.executable)
        self.env.setdefault("SPARK_DAEMON_JAVA_OPTS", SMALL_NODE_JAVA_OPTIONS)
        self.master = self._start("master", "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
                                  "--port", str(self.port), "--webui-port", str(free_port()))
        self.workers = [
            self._start(f"worker-{n}", "org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1",
                        "--cores", str(cores), "--memory", memory, "--webui-port", str(free_port()),
                        "--work-dir", str(self.root / f"work-{n}"), self.url)
            for n in range(workers)
        ]
        # The driver of this process binds to 127.0.0.1 too, and runs the same interpreter.
        os.environ.update(SPARK_LOCAL_IP="127.0.0.1", PYSPARK_PYTHON=sys.executable)

    def _start(self, name: str, main: str, *args: str) -> subprocess.Popen:
        with open(self.root / f"{name}.log", "w") as log:
            return subprocess.Popen([str(self.home / "bin" / "spark-class"), main, *args], env=self.env,
                                    stdout=log, stderr=subprocess.STDOUT, start_new_session=True)

    def kill(self, process: subprocess.Popen) -> None:
        """Kills a daemon with what it started (a worker's executors), as a crash would."""
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()

    def stop(self) -> None:
        for process in [*self.workers, self.master]:
            self.kill(process)

    def __enter__(self) -> "LocalCluster":
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def wait_for_executors(spark, count: int, timeout: float = 120) -> None:
    """Waits until ``count`` executors have registered with the driver of ``spark``."""
    import time

    status = spark.sparkContext._jsc.sc()
    deadline = time.monotonic() + timeout
    # The driver counts as one.
    while status.getExecutorMemoryStatus().size() < count + 1:
        if time.monotonic() > deadline:
            raise TimeoutError(f"{count} executors did not register within {timeout:.0f} s")
        time.sleep(0.5)
