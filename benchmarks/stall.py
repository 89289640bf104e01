"""A stalled disk for one ``aclog serve`` process of the failover probe: the process runs the
CLI with every ``os.fsync`` it makes waiting while a marker file exists (a device that stops
answering, as a failing disk or a saturated network volume does; a FUSE or ``dm-delay`` device
is not available on the machines the probe runs on). Only the process started through
:data:`LAUNCHER` is affected; the others share the same directory on a healthy disk.

The marker's path comes from ``ACLOG_PROBE_STALL`` in the process's environment; the probe
creates the marker to stall the disk and removes it to let the waiting fsyncs go on.

A second marker (``ACLOG_PROBE_FREEZE``) freezes the process inside an append: the next write
to a log segment removes the marker and stops the process (SIGSTOP) before its bytes reach
the file, where a leader used to hold the append lock; the probe sends SIGCONT.

Thread-safe (each waiting fsync polls the marker on its own). Cost: one ``stat`` per fsync and
per ``os.write``.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable
from typing import Any

LAUNCHER = "from benchmarks.stall import main; main()"
POLL_SECONDS = 0.01


def main() -> None:
    """Run ``aclog`` with fsyncs that wait while the marker exists."""
    marker = os.environ["ACLOG_PROBE_STALL"]
    real_fsync = os.fsync

    def stalling_fsync(fd: int) -> None:
        while os.path.exists(marker):
            time.sleep(POLL_SECONDS)
        real_fsync(fd)

    os.fsync = stalling_fsync
    freeze = os.environ.get("ACLOG_PROBE_FREEZE")
    if freeze is not None:
        os.write = _freezing_write(freeze, os.write)
    from aclog.tools.main import main as aclog_main

    aclog_main()


def _freezing_write(marker: str, real_write: Callable[[int, Any], int]) -> Any:
    def freezing_write(fd: int, data: Any) -> int:
        if os.path.exists(marker) and os.readlink(f"/proc/self/fd/{fd}").endswith(".log"):
            os.unlink(marker)
            os.kill(os.getpid(), signal.SIGSTOP)  # frozen here until the probe's SIGCONT
        return real_write(fd, data)

    return freezing_write
