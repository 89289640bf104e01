"""A real Kafka broker beside the tests: found through ``KAFKA_HOME``, started once per session.

``KAFKA_HOME`` names any Kafka distribution with KRaft and SCRAM (``bin/kafka-storage.sh``,
``bin/kafka-server-start.sh``; default ``../shared/kafka`` beside the checkout, where it exists).
:func:`start_broker` formats and starts a combined KRaft node with Kafka's own scripts, on free
loopback ports: PLAINTEXT (acts as ``User:ANONYMOUS``, a super user), SASL_PLAINTEXT with
SCRAM-SHA-256/512 (super user ``admin`` / ``admin-secret``), ``StandardAuthorizer``.
:meth:`KafkaBroker.stop` stops it by pid. Without a distribution, :func:`kafka_home_or_fail`
fails the test with one line saying how to get one.

A session's broker is shared by every test that asks for it, so tests name their resources
uniquely (:func:`unique`) and remove what they create.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks.kafka_dist import NODE_PROPERTIES, free_ports
from tests.gates import unavailable

REPO = Path(__file__).resolve().parents[1]
ADMIN, ADMIN_PASSWORD = "admin", "admin-secret"
"""The super user ``start-test-broker.sh`` creates (SCRAM-SHA-256) on the SASL listener."""
MISSING_LINE = (
    "no Kafka distribution: set KAFKA_HOME to a Kafka 3.5+ download (bin/kafka-storage.sh, "
    "bin/kafka-server-start.sh) or put one at ../shared/kafka to run the real-Kafka tests"
)


def kafka_home() -> Path | None:
    """The Kafka distribution the tests use, or None when there is none."""
    configured = os.environ.get("KAFKA_HOME")
    candidates = [Path(configured)] if configured else [REPO.parent / "shared" / "kafka"]
    for home in candidates:
        if all((home / "bin" / s).is_file() for s in ("kafka-storage.sh", "kafka-server-start.sh")):
            return home.resolve()
    return None


def kafka_home_or_fail() -> Path:
    home = kafka_home()
    if home is None:
        unavailable(MISSING_LINE)
    return home


def unique(prefix: str) -> str:
    """A resource or principal name no other test of the session uses."""
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


@dataclass
class KafkaBroker:
    """One running KRaft broker started by ``start-test-broker.sh``; stopped by its pid."""

    home: Path
    workdir: Path
    pid: int
    bootstrap: str
    sasl_bootstrap: str
    metadata_dir: Path
    env: dict[str, str] = field(default_factory=dict)

    def tool(
        self, name: str, *args: str, timeout: float = 120.0
    ) -> subprocess.CompletedProcess[str]:
        """Run one of Kafka's own scripts (``kafka-acls.sh``...) and return what it printed."""
        command = [str(self.home / "bin" / name), *args]
        return subprocess.run(
            command, capture_output=True, text=True, timeout=timeout, env=self.env, check=False
        )

    def stop(self, timeout: float = 30.0) -> None:
        try:
            os.kill(self.pid, signal.SIGTERM)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not _alive(self.pid):
                return
            time.sleep(0.1)
        os.kill(self.pid, signal.SIGKILL)
        os.waitpid(self.pid, 0)


def _alive(pid: int) -> bool:
    try:
        done, _ = os.waitpid(pid, os.WNOHANG)  # our child: reap it once it has exited
    except ChildProcessError:
        return False
    return done == 0


def tool_env(workdir: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["LOG_DIR"] = str(workdir / "tool-logs")
    env.setdefault("KAFKA_HEAP_OPTS", "-Xms64m -Xmx256m")
    return env


def run_tool(
    home: Path, workdir: Path, name: str, *args: str, timeout: float = 120.0
) -> subprocess.CompletedProcess[str]:
    """Run one of Kafka's scripts that needs no broker (``kafka-dump-log.sh``), with its logs
    under ``workdir``."""
    command = [str(home / "bin" / name), *args]
    return subprocess.run(
        command, capture_output=True, text=True, timeout=timeout, env=tool_env(workdir), check=False
    )


BROKER_PROPERTIES = (
    NODE_PROPERTIES
    + """\
offsets.topic.replication.factor=1
offsets.topic.num.partitions=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
"""
)
"""A combined KRaft node for tests, the settings every Kafka 3.5+ download understands."""

SNAPSHOT_PROPERTIES = """\
metadata.log.max.snapshot.interval.ms=5000
metadata.log.segment.ms=10000
metadata.max.retention.ms=20000
"""
"""A KRaft snapshot every 5 s, a new metadata segment every 10 s, old ones deleted after 20 s."""


def _format(home: Path, workdir: Path, env: dict[str, str]) -> None:
    """``kafka-storage.sh format`` with the super user's SCRAM credential."""
    storage = str(home / "bin" / "kafka-storage.sh")

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [storage, *args], capture_output=True, text=True, timeout=120, env=env, check=False
        )

    made = run("random-uuid")
    assert made.returncode == 0, made.stderr
    cluster_id = made.stdout.strip().splitlines()[-1]
    scram = f"SCRAM-SHA-256=[name={ADMIN},password={ADMIN_PASSWORD}]"
    props = str(workdir / "server.properties")
    done = run("format", "-t", cluster_id, "-c", props, "--add-scram", scram)
    assert done.returncode == 0, f"kafka-storage.sh format failed:\n{done.stdout}{done.stderr}"


def _wait_started(process: subprocess.Popen[bytes], out: Path, timeout: float = 180.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        log = out.read_text(errors="replace") if out.exists() else ""
        if "Kafka Server started" in log:
            return
        if process.poll() is not None:
            raise AssertionError(f"the Kafka broker exited ({process.returncode}):\n{log[-3000:]}")
        time.sleep(0.2)
    process.kill()
    process.wait(10)
    raise AssertionError(f"the Kafka broker did not start within {timeout:.0f} s; see {out}")


def start_broker(workdir: Path, *, snapshots: bool = False) -> KafkaBroker:
    """Format and start a broker under ``workdir`` with ``KAFKA_HOME`` 's own scripts; fail with
    its log when it does not start."""
    home = kafka_home_or_fail()
    plain, sasl, controller = free_ports(3)
    data = workdir / "data"
    voters = f"1@127.0.0.1:{controller}"
    properties = BROKER_PROPERTIES.format(
        node=1, voters=voters, plain=plain, sasl=sasl, controller=controller, data=data
    )
    (workdir / "server.properties").write_text(
        properties + (SNAPSHOT_PROPERTIES if snapshots else "")
    )
    env = tool_env(workdir)
    _format(home, workdir, env)
    broker_env = {**env, "LOG_DIR": str(workdir / "logs")}
    broker_env["KAFKA_HEAP_OPTS"] = os.environ.get("KAFKA_HEAP_OPTS", "-Xms256m -Xmx768m")
    out = workdir / "broker.out"
    with out.open("wb") as sink:
        process = subprocess.Popen(
            [str(home / "bin" / "kafka-server-start.sh"), str(workdir / "server.properties")],
            stdout=sink, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=broker_env,
        )  # fmt: skip
    _wait_started(process, out)
    return KafkaBroker(
        home=home,
        workdir=workdir,
        pid=process.pid,  # kafka-run-class.sh execs java: this is the broker's own pid
        bootstrap=f"127.0.0.1:{plain}",
        sasl_bootstrap=f"127.0.0.1:{sasl}",
        metadata_dir=data / "__cluster_metadata-0",
        env=env,
    )


@dataclass
class KafkaTarget:
    """A real broker's listener in the shape the admin-client helpers take (``bootstrap`` and
    ``info["security_protocol"]``), so one test body runs against ``aclog serve`` and Kafka."""

    broker: KafkaBroker
    sasl: bool = False
    name: str = "kafka"
    eventually_consistent: bool = True
    """Reads after a write may lag (the broker's authorizer follows the metadata log)."""

    @property
    def bootstrap(self) -> str:
        return self.broker.sasl_bootstrap if self.sasl else self.broker.bootstrap

    @property
    def host(self) -> str:
        return self.bootstrap.rsplit(":", 1)[0]

    @property
    def port(self) -> int:
        return int(self.bootstrap.rsplit(":", 1)[1])

    @property
    def info(self) -> dict[str, str]:
        return {"security_protocol": "SASL_PLAINTEXT" if self.sasl else "PLAINTEXT"}
