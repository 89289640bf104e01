"""The jobs on a real Spark standalone cluster (master and one worker on 127.0.0.1, the worker in
its own working directory) give the same answers as local mode, from a relative ``--data-dir``
whose state starts at a snapshot: every path the executors open is resolved on the driver.

The cluster commands run as ``aclog`` processes (a process holds one SparkContext, and this one
holds the tests' local session), started together: their drivers start while the single
executor core serves the one before. The local answers come from the shared session.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import SparkSession
from typer.testing import CliRunner

import aclog.tools.pipeline  # noqa: F401  (registers the commands)
from aclog.pipeline.session import find_java
from aclog.tools.console import app
from tests.pipeline.conftest import Logs
from tests.pipeline.logs import REQUEST_NAMES, REQUEST_PRINCIPALS
from tests.pipeline.standalone import StandaloneCluster, daemon_environment

runner = CliRunner()
COMMAND_TIMEOUT_S = 360
# Small executors, the C1 JIT only, one shuffle partition: the machine has two cores.
CLUSTER_CONF = [
    "spark.executor.memory=512m",
    "spark.executor.extraJavaOptions=-XX:TieredStopAtLevel=1 -XX:-UsePerfData",
    "spark.driver.extraJavaOptions=-XX:TieredStopAtLevel=1",
    "spark.sql.shuffle.partitions=1",
]

# Relative paths throughout: the commands run with the temporary folder as working directory.
COMMANDS = {
    "state": ["state", "--data-dir", "data", "--out", "state-out"],
    "access": [
        *("access", "--data-dir", "data", "--resources", "resources.txt"),
        *("--principals", "principals.txt", "--hosts", "10.0.0.1"),
    ],
    "history": ["history", "--data-dir", "data", "--out", "lifetimes"],
}


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StandaloneCluster]:
    assert find_java() is not None, (
        "Spark needs Java 17+: apt-get install -y openjdk-17-jre-headless"
    )
    running = StandaloneCluster(tmp_path_factory.mktemp("standalone"))
    try:
        running.start()
        yield running
    finally:
        running.stop()


def _workspace(root: Path, logs: Logs) -> Path:
    """A working directory holding ``data`` (a log that starts at its snapshot) and the
    access job's inventory files."""
    shutil.copytree(logs.pruned, root / "data")
    names = dict.fromkeys(REQUEST_NAMES)
    (root / "resources.txt").write_text("".join(f"TOPIC:{n}\n" for n in names), encoding="utf-8")
    people = "".join(f"{p}\n" for p in REQUEST_PRINCIPALS)
    (root / "principals.txt").write_text(people, encoding="utf-8")
    return root


def _on_cluster(cluster: StandaloneCluster, cwd: Path) -> dict[str, dict[str, Any]]:
    """Each command's ``--json`` answer from ``aclog`` processes on the cluster."""
    env = daemon_environment(cwd / "scratch")
    # No SPARK_LOCAL_IP: the driver's address must come from aclog's default for a master on
    # this machine.
    for name in (
        "SPARK_LOCAL_IP",
        "ACLOG_SPARK_MASTER",
        "ACLOG_DATA_DIR",
        "ACLOG_SPARK_DRIVER_HOST",
    ):
        env.pop(name, None)
    conf = [part for item in CLUSTER_CONF for part in ("--conf", item)]
    master = ["--master", cluster.master_url]
    running = {
        name: subprocess.Popen(
            [sys.executable, "-m", "aclog", "pipeline", *args, "--json", *conf, *master],
            cwd=cwd,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            text=True,
        )
        for name, args in COMMANDS.items()
    }
    answers = {}
    try:
        for name, process in running.items():
            stdout, stderr = process.communicate(timeout=COMMAND_TIMEOUT_S)
            assert process.returncode == 0, f"{name}: {stderr[-3000:]}\n{cluster.log_tail()}"
            assert "Traceback" not in stderr, stderr
            assert "resolves to a loopback address" not in stderr, stderr
            answers[name] = json.loads(stdout)
    finally:
        for process in running.values():
            if process.poll() is None:
                process.kill()
                process.wait(timeout=30)
    return answers


def _local(cwd: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, dict[str, Any]]:
    """The same commands in local mode (the tests' shared session), from the same folder."""
    monkeypatch.chdir(cwd)
    answers = {}
    for name, args in COMMANDS.items():
        local_args = [a if a not in ("state-out", "lifetimes") else f"local-{a}" for a in args]
        result = runner.invoke(app, ["pipeline", *local_args, "--json"])
        assert result.exit_code == 0, result.output
        answers[name] = json.loads(result.stdout)
    return answers


@pytest.mark.timeout(600)  # three Spark drivers and an executor on a shared two-core machine
def test_state_access_and_history_on_a_standalone_cluster_equal_local_mode(
    spark: SparkSession,
    logs: Logs,
    cluster: StandaloneCluster,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    cwd = _workspace(tmp_path, logs)
    before = len(cluster.status().get("completedapps", []))

    remote = _on_cluster(cluster, cwd)
    local = _local(cwd, monkeypatch)

    # Every command ran as an application of the cluster (not in a local fallback), with the
    # executor memory its --conf asked for.
    apps = cluster.status().get("completedapps", [])[before:]
    assert len(apps) == len(COMMANDS)
    assert {(app["name"], app["memoryperexecutor"]) for app in apps} == {("aclog-pipeline", 512)}
    assert remote == local
    # The snapshot was read (the log starts after it) and the answers are not empty.
    assert local["state"]["acls"] and local["state"]["offset"] > 0
    assert local["access"]["decisions"] and local["history"]["lifetimes"]
    # The relative --out folders were written in this folder, not in the worker's.
    assert (cwd / "state-out" / "acls").is_dir() and (cwd / "lifetimes").is_dir()
    assert not list((cluster.root / "worker").rglob("state-out"))
    assert sorted(os.listdir(cwd / "data")) == sorted(os.listdir(logs.pruned))
