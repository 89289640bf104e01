"""The one SparkSession factory that the CLI, the tests and the benchmarks share.

:func:`make_spark` prepares the environment before the JVM starts (quiet logs, no UI, scratch
space in one temporary folder, workers that run this interpreter), builds the session, lowers the
log level and registers the ``aclog`` and ``aclog-kraft`` data sources. ``master`` defaults to
``local[2]``; give a ``spark://host:7077`` URL (or ``yarn``, ``k8s://...``) to run on a
cluster, where the executors need ``aclog`` installed and the data directory at the same
absolute path (the jobs hand the executors absolute paths, resolved here on the driver). Extra
Spark settings (``conf``, e.g. ``spark.executor.memory``) and the address executors reach the
driver at (:mod:`aclog.pipeline.settings`) are applied last.

Local-only settings: ``SPARK_LOCAL_IP=127.0.0.1`` (the driver binds to loopback, which executors
on other machines could not reach) and ``PYSPARK_PYTHON`` set to this interpreter (a cluster's
workers have their own Python; set ``PYSPARK_PYTHON`` there). Java 17 or newer must be on
``PATH`` or under ``JAVA_HOME``; without it :func:`make_spark` raises :class:`PipelineError` with
the command that installs it (:class:`JavaMissingError`).

Not thread-safe: build a session from one thread. A process has at most one active session;
:func:`spark_session` reuses it when one is running (tests share theirs with the CLI), and then
the settings of the call do not apply.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from pyspark.sql import SparkSession

from aclog.pipeline.errors import JavaMissingError
from aclog.pipeline.jvm_stderr import filtered_jvm_stderr
from aclog.pipeline.kraft_source import KraftDataSource
from aclog.pipeline.settings import driver_host, driver_settings, is_address, is_local, merged
from aclog.pipeline.source import AclogDataSource

DEFAULT_MASTER = "local[2]"
MASTER_ENV = "ACLOG_SPARK_MASTER"

LOG4J2_PROPERTIES = """\
# Written by aclog.pipeline.session: Spark quiet except for real problems.
rootLogger.level = warn
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{HH:mm:ss} %p %c{1}: %m%n%ex
logger.nativecode.name = org.apache.hadoop.util.NativeCodeLoader
logger.nativecode.level = error
logger.shutdown.name = org.apache.spark.util.ShutdownHookManager
logger.shutdown.level = error
logger.blockmanager.name = org.apache.spark.storage.BlockManager
logger.blockmanager.level = error
# A failed task reaches the driver as an exception (which the CLI prints in one line), so the
# executor's copy of its stack trace is not printed as well.
logger.executor.name = org.apache.spark.executor.Executor
logger.executor.level = fatal
logger.tasks.name = org.apache.spark.scheduler.TaskSetManager
logger.tasks.level = fatal
"""

JAVA_HELP = (
    "Spark needs Java 17 or newer, and no 'java' was found on PATH or under JAVA_HOME. "
    "Install it (Debian/Ubuntu: apt-get install -y openjdk-17-jre-headless) or set JAVA_HOME."
)


def find_java() -> str | None:
    """The ``java`` launcher Spark will use: ``$JAVA_HOME/bin/java``, else ``java`` on PATH."""
    home = os.environ.get("JAVA_HOME")
    if home:
        candidate = Path(home) / "bin" / "java"
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return shutil.which("java")


def scratch_dir() -> Path:
    """The folder for Spark's scratch files, Java temp files and the log4j2 file."""
    path = Path(tempfile.gettempdir()) / f"aclog-spark-{os.getuid()}"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _log4j2_file(folder: Path) -> Path:
    path = folder / "log4j2.properties"
    if not path.exists() or path.read_text(encoding="utf-8") != LOG4J2_PROPERTIES:
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(LOG4J2_PROPERTIES, encoding="utf-8")
        os.replace(tmp, path)
    return path


def _prepare_environment(master: str, folder: Path, host: str | None) -> None:
    if is_local(master):
        os.environ["SPARK_LOCAL_IP"] = "127.0.0.1"
        os.environ["PYSPARK_PYTHON"] = sys.executable
    else:
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        if host is not None and is_address(host):
            # Spark's other listeners (block manager) bind where the driver does, and it stops
            # warning that this host's name resolves to loopback.
            os.environ.setdefault("SPARK_LOCAL_IP", host)
    os.environ.setdefault("SPARK_LOCAL_DIRS", str(folder / "local"))
    os.environ.setdefault("SPARK_LAUNCHER_OPTS", "-XX:-UsePerfData")


def make_spark(
    master: str | None = None,
    *,
    app_name: str = "aclog-pipeline",
    shuffle_partitions: int = 2,
    driver_memory: str = "1g",
    fast_start: bool = False,
    conf: Mapping[str, str] | None = None,
    driver: str | None = None,
) -> SparkSession:
    """Start (or join) the SparkSession for the pipeline and register its formats.

    ``master``: ``None`` reads ``$ACLOG_SPARK_MASTER``, else ``local[2]``. ``fast_start`` adds
    ``-XX:TieredStopAtLevel=1`` (C1 JIT only: faster start, slower long jobs; for tests).
    ``driver_memory`` applies only when this call starts the JVM. ``conf`` (see
    :func:`~aclog.pipeline.settings.parse_conf`) overrides aclog's settings; ``driver`` is the
    address executors reach the driver at (see :func:`~aclog.pipeline.settings.driver_host`).
    Raises :class:`PipelineError` when Java is missing (:class:`JavaMissingError`), and
    :class:`~aclog.pipeline.settings.SettingError` for a bad ``driver``.
    """
    master = master or os.environ.get(MASTER_ENV) or DEFAULT_MASTER
    if find_java() is None:
        raise JavaMissingError(JAVA_HELP)
    host = driver_host(master, driver)
    folder = scratch_dir()
    _prepare_environment(master, folder, host)
    settings = session_settings(
        master,
        folder,
        host,
        shuffle_partitions=shuffle_partitions,
        driver_memory=driver_memory,
        fast_start=fast_start,
        conf=conf or {},
    )
    builder = SparkSession.builder.master(master).appName(app_name)
    for key, value in settings.items():
        builder = builder.config(key, value)
    with filtered_jvm_stderr():
        spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    register_sources(spark)
    return spark


def register_sources(spark: SparkSession) -> None:
    """Register the ``aclog`` and ``aclog-kraft`` formats with ``spark`` (per session)."""
    spark.dataSource.register(AclogDataSource)
    spark.dataSource.register(KraftDataSource)


def session_settings(
    master: str,
    folder: Path,
    host: str | None,
    *,
    shuffle_partitions: int,
    driver_memory: str,
    fast_start: bool,
    conf: Mapping[str, str],
) -> dict[str, str]:
    """Every setting :func:`make_spark` gives the builder: aclog's (quiet, scratch in
    ``folder``, UTC), the driver's address ``host``, then ``conf`` over them (see
    :func:`~aclog.pipeline.settings.merged`)."""
    java_options = [
        f"-Djava.io.tmpdir={folder}",
        "-XX:-UsePerfData",
        f"-Dlog4j2.configurationFile=file:{_log4j2_file(folder)}",
    ]
    if fast_start:
        java_options.append("-XX:TieredStopAtLevel=1")
    settings = {
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.shuffle.partitions": str(shuffle_partitions),
        "spark.driver.memory": driver_memory,
        "spark.driver.extraJavaOptions": " ".join(java_options),
        "spark.sql.warehouse.dir": str(folder / "warehouse"),
        "spark.sql.execution.arrow.pyspark.enabled": "true",
        "spark.sql.session.timeZone": "UTC",
        "spark.sql.adaptive.enabled": "true",
        # Cached DataFrames (the records a state job reads three times) are kept uncompressed:
        # choosing and applying an encoding per column and batch cost more CPU than the
        # decoding that fills the cache, and the cache is read from memory anyway.
        "spark.sql.inMemoryColumnarStorage.compressed": "false",
        # Lets the access job join its grid to the decisions without shuffling the grid.
        "spark.sql.requireAllClusterKeysForCoPartition": "false",
    }
    if is_local(master):
        settings["spark.default.parallelism"] = _cores(master)
    return merged({**settings, **driver_settings(host)}, conf)


def _cores(master: str) -> str:
    inside = master[len("local[") : -1] if master.startswith("local[") else "1"
    if inside == "*":
        return str(os.cpu_count() or 1)
    return inside.split(",")[0] or "1"


@contextmanager
def spark_session(master: str | None = None, **options: object) -> Iterator[SparkSession]:
    """A session for one command: the running one if there is one (left running), else a new
    one that is stopped afterwards."""
    active = SparkSession.getActiveSession()
    if active is not None:
        register_sources(active)
        yield active
        return
    spark = make_spark(master, **options)  # type: ignore[arg-type]
    try:
        yield spark
    finally:
        spark.stop()
