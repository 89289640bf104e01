"""A real ``aclog ui`` process on 127.0.0.1 and a free port, for the end-to-end tests: started
with the interpreter running the tests, its URL read from its first line, stopped by pid."""

from __future__ import annotations

import os
import selectors
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT_S = 60


@contextmanager
def running_ui(data_dir: Path, *extra: str) -> Iterator[str]:
    """``aclog ui --data-dir DATA_DIR --port 0 EXTRA...`` running; yields its URL."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("ACLOG_DATA_DIR", None)
    process = subprocess.Popen(
        [sys.executable, "-m", "aclog", "ui", "--data-dir", str(data_dir), "--port", "0", *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=ROOT,
    )
    try:
        yield _url(process)
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=15)
        assert process.stdout is not None and process.stderr is not None
        process.stdout.close()
        process.stderr.close()


def _url(process: subprocess.Popen[str]) -> str:
    assert process.stdout is not None
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        if not selector.select(START_TIMEOUT_S):
            raise AssertionError(f"aclog ui printed nothing in {START_TIMEOUT_S} s")
    line = process.stdout.readline()
    if "http://" not in line:
        _, err = process.communicate(timeout=15)
        raise AssertionError(f"aclog ui did not start: {line!r} {err!r}")
    return line[line.index("http://") :].strip().rstrip("/")
