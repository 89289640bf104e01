"""One SparkSession for the whole pipeline test run, and the small logs the tests read.

Spark starts once (about 5 s) with local[2], one shuffle partition and the C1 JIT only; every
test shares it, and so does the CLI when a test invokes it (``spark_session`` reuses the running
session). Without pyspark (the ``spark`` extra) the folder is not collected; without Java the
tests fail and say what to install.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.pipeline.logs import write_log

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

if importlib.util.find_spec("pyspark") is None:
    collect_ignore_glob = ["test_*.py"]


@pytest.fixture(scope="session")
def spark() -> Iterator[SparkSession]:
    from aclog.pipeline.session import find_java, make_spark

    # `make test` installs Java first when it can; if it is still missing, fail and say why
    # rather than pass without having run the pipeline.
    assert find_java() is not None, (
        "Spark needs Java 17+: apt-get install -y openjdk-17-jre-headless (or set JAVA_HOME)"
    )
    session = make_spark(shuffle_partitions=1, fast_start=True, app_name="aclog-tests")
    yield session
    session.stop()


@dataclass(frozen=True)
class Logs:
    """The logs every pipeline test reads: written once per run."""

    full: Path  # snapshots at two points, every segment kept
    pruned: Path  # a snapshot, and the segments below it deleted


@pytest.fixture(scope="session")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Logs:
    full = tmp_path_factory.mktemp("full")
    write_log(full, seed=11, steps=70, snapshot_at=(24, 47))
    pruned = tmp_path_factory.mktemp("pruned")
    write_log(pruned, seed=12, steps=50, snapshot_at=(30,), prune=True)
    return Logs(full, pruned)
