"""``aclog import --from-kraft DIR --follow --json`` as a subprocess for tests: output in files,
stopped by its pid (SIGTERM, then SIGKILL), and a bounded wait for a condition. Used with
aclog's own KRaft writer (tests/kraft) and with a real broker's live directory
(tests/kafka_real)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.wire.harness import REPO


class ImportFollower:
    """One following import of ``source`` into ``target``; stdout and stderr in files."""

    def __init__(self, workdir: Path, source: Path, target: Path, *extra: str) -> None:
        stamp = time.monotonic_ns()
        self.out, self.err = workdir / f"out-{stamp}", workdir / f"err-{stamp}"
        command = [sys.executable, "-m", "aclog", "import", "--from-kraft", str(source),
                   "--data-dir", str(target), "--follow", "--json", *extra]  # fmt: skip
        with self.out.open("wb") as out, self.err.open("wb") as err:
            self.process = subprocess.Popen(
                command,
                stdout=out,
                stderr=err,
                stdin=subprocess.DEVNULL,
                env={**os.environ, "PYTHONPATH": str(REPO)},
            )

    def lines(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.out.read_text().splitlines() if line]

    def stderr(self) -> str:
        return self.err.read_text()

    def wait(self, timeout: float = 20) -> int:
        try:
            return self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=5)
            raise

    def stop(self) -> int:
        """SIGTERM by pid, then the exit code (SIGKILL after 15 s)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        return self.wait(15)


def eventually(check: Callable[[], bool], timeout: float = 20.0) -> bool:
    """Whether ``check()`` holds within ``timeout`` seconds (polled every 50 ms)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.05)
    return False
