"""A real Kafka broker beside the tests: found through ``KAFKA_HOME``, started once per session.

``KAFKA_HOME`` names a Kafka distribution (default: ``../shared/kafka`` beside the checkout, where
it exists). :func:`start_broker` runs its ``bin/start-test-broker.sh`` (a KRaft combined node with
PLAINTEXT, SASL_PLAINTEXT/SCRAM and ``StandardAuthorizer`` on free loopback ports) and
:meth:`KafkaBroker.stop` stops it by pid. Without a distribution, :func:`kafka_home_or_skip`
skips the test with one line saying how to enable it.

A session's broker is shared by every test that asks for it, so tests name their resources
uniquely (:func:`unique`) and remove what they create.
"""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
ADMIN, ADMIN_PASSWORD = "admin", "admin-secret"
"""The super user ``start-test-broker.sh`` creates (SCRAM-SHA-256) on the SASL listener."""
SKIP_LINE = (
    "no Kafka distribution: set KAFKA_HOME to one with bin/start-test-broker.sh "
    "(or put it at ../shared/kafka) to run the real-Kafka tests"
)


def kafka_home() -> Path | None:
    """The Kafka distribution the tests use, or None when there is none."""
    configured = os.environ.get("KAFKA_HOME")
    candidates = [Path(configured)] if configured else [REPO.parent / "shared" / "kafka"]
    for home in candidates:
        if (home / "bin" / "start-test-broker.sh").is_file():
            return home.resolve()
    return None


def kafka_home_or_skip() -> Path:
    home = kafka_home()
    if home is None:
        pytest.skip(SKIP_LINE)
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


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie child counts as gone: reap it if it is ours.
    try:
        done, _ = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        done = 0
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


def start_broker(workdir: Path, *, snapshots: bool = False) -> KafkaBroker:
    """Format and start a broker under ``workdir``; fail with its log when it does not start."""
    home = kafka_home_or_skip()
    args = [str(home / "bin" / "start-test-broker.sh"), str(workdir)]
    if snapshots:
        args.append("--snapshots")
    done = subprocess.run(args, capture_output=True, text=True, timeout=180, check=False)
    assert done.returncode == 0, f"the Kafka broker did not start:\n{done.stderr[-3000:]}"
    values = dict(part.split("=", 1) for part in shlex.split(done.stdout.strip().splitlines()[-1]))
    return KafkaBroker(
        home=home,
        workdir=workdir,
        pid=int(values["KAFKA_PID"]),
        bootstrap=values["KAFKA_BOOTSTRAP"],
        sasl_bootstrap=values["KAFKA_SASL_BOOTSTRAP"],
        metadata_dir=Path(values["KAFKA_METADATA_DIR"]),
        env=tool_env(workdir),
    )


@dataclass
class KafkaTarget:
    """A real broker's listener in the shape the admin-client helpers take (``bootstrap`` and
    ``info["security_protocol"]``), so one test body runs against ``aclog serve`` and Kafka."""

    broker: KafkaBroker
    sasl: bool = False
    name: str = "kafka"

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
