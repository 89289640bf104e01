"""A Spark standalone cluster on 127.0.0.1 for the tests: one master and one worker, started from
the pip-installed pyspark with ``bin/spark-class`` (a pip install has no ``sbin/start-*.sh``).

The worker runs in its own working directory, as a worker on another machine would: a relative
path that only the driver can resolve fails there. Both daemons get small heaps and the worker
one core, so the machine's two cores stay usable. Every process is stopped by its process group
(each daemon is a session leader), first politely, then with SIGKILL. Where util-linux's
``setpriv`` is there, each daemon also gets SIGTERM when the test process dies, so a run killed
before its teardown leaves no JVM behind.

Not thread-safe (one cluster per fixture). Cost: two JVM starts (seconds each) and the wait for
the worker to register.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import aclog

START_TIMEOUT_S = 90.0
STOP_TIMEOUT_S = 15.0
REPO_ROOT = Path(aclog.__file__).resolve().parents[1]


def spark_home() -> Path:
    """The pip-installed pyspark's folder, which is a Spark home (``bin/spark-class``, jars)."""
    from pyspark.find_spark_home import _find_spark_home  # only way that pyspark itself uses

    return Path(_find_spark_home())


def free_port() -> int:
    """A port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def daemon_environment(scratch: Path) -> dict[str, str]:
    """The environment of the daemons and of the executors they start: loopback only, small
    heaps, scratch in ``scratch``, and this checkout's ``aclog`` importable by the executors'
    Python workers (the driver's PYSPARK_PYTHON names the interpreter)."""
    env = dict(os.environ)
    path = [str(REPO_ROOT), *filter(None, [env.get("PYTHONPATH")])]
    env.update(
        {
            "SPARK_LOCAL_IP": "127.0.0.1",
            "SPARK_DAEMON_MEMORY": "256m",
            "SPARK_DAEMON_JAVA_OPTS": f"-XX:-UsePerfData -Djava.io.tmpdir={scratch}",
            "SPARK_LAUNCHER_OPTS": "-XX:-UsePerfData",
            "SPARK_LOCAL_DIRS": str(scratch / "local"),
            "PYTHONPATH": os.pathsep.join(path),
        }
    )
    return env


@dataclass
class StandaloneCluster:
    """A running master and worker; :attr:`master_url` is what ``--master`` takes."""

    root: Path
    port: int = field(default_factory=free_port)
    ui_port: int = field(default_factory=free_port)
    processes: list[subprocess.Popen[bytes]] = field(default_factory=list)
    logs: list[IO[bytes]] = field(default_factory=list)

    @property
    def master_url(self) -> str:
        return f"spark://127.0.0.1:{self.port}"

    def start(self) -> None:
        """Start the master, then the worker, and wait until the worker has registered."""
        scratch = self.root / "scratch"
        work = self.root / "worker"
        for folder in (scratch, work):
            folder.mkdir(parents=True, exist_ok=True)
        master = ["org.apache.spark.deploy.master.Master", "--host", "127.0.0.1"]
        master += ["--port", str(self.port), "--webui-port", str(self.ui_port)]
        self._spawn("master", master, scratch)
        worker = ["org.apache.spark.deploy.worker.Worker", self.master_url, "--host", "127.0.0.1"]
        worker += ["--cores", "1", "--memory", "1g", "--work-dir", str(work), "--webui-port", "0"]
        self._spawn("worker", worker, work)
        self._wait_for_worker()

    def _spawn(self, name: str, arguments: list[str], cwd: Path) -> None:
        log = (self.root / f"{name}.log").open("wb")
        self.logs.append(log)
        command = [*_dying_with_the_tests(), str(spark_home() / "bin" / "spark-class"), *arguments]
        env = daemon_environment(self.root / "scratch")
        self.processes.append(
            subprocess.Popen(
                command,
                cwd=cwd,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        )

    def status(self) -> dict[str, Any]:
        """The master's state as its web UI reports it (``/json/``)."""
        url = f"http://127.0.0.1:{self.ui_port}/json/"
        with urllib.request.urlopen(url, timeout=5) as response:
            return json.loads(response.read())  # type: ignore[no-any-return]

    def _wait_for_worker(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            for process in self.processes:
                if process.poll() is not None:
                    raise RuntimeError(f"a Spark daemon exited early: {self.log_tail()}")
            try:
                workers = self.status().get("workers", [])
            except (OSError, urllib.error.URLError, ValueError):
                workers = []
            if any(w.get("state") == "ALIVE" for w in workers):
                return
            time.sleep(0.5)
        raise RuntimeError(f"no worker registered within {START_TIMEOUT_S} s: {self.log_tail()}")

    def log_tail(self, lines: int = 20) -> str:
        """The last lines of each daemon's log, for a failure message."""
        parts = []
        for name in ("master", "worker"):
            path = self.root / f"{name}.log"
            if path.exists():
                text = path.read_text(encoding="utf-8", errors="replace").splitlines()
                parts.append(f"--- {name}\n" + "\n".join(text[-lines:]))
        return "\n".join(parts)

    def stop(self) -> None:
        """Stop the worker, then the master: each process group, TERM then KILL."""
        for process in reversed(self.processes):
            _stop_group(process)
        self.processes.clear()
        for log in self.logs:
            log.close()
        self.logs.clear()


def _dying_with_the_tests() -> list[str]:
    """A prefix that has the daemon sent SIGTERM when the process that started it dies, even by
    SIGKILL (``PR_SET_PDEATHSIG``, which survives ``spark-class``'s exec of Java); none where
    ``setpriv`` is missing, and the fixture's teardown stops the daemons as before."""
    setpriv = shutil.which("setpriv")
    return [] if setpriv is None else [setpriv, "--pdeathsig", "TERM", "--"]


def _stop_group(process: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(process.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    try:
        process.wait(timeout=STOP_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=STOP_TIMEOUT_S)
