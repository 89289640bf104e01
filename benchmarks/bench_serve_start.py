"""``aclog serve`` from its start to a listening port, on the log of a server killed before its
first snapshot: :data:`BATCHES` batches of 1-4 records each led by a request context (about
37.5k ACLs and SCRAM changes, as admin clients write them a request at a time), beside an
empty data directory (imports and start-up alone). Part of the ``smallbatch`` suite.

Each run starts ``python -m aclog serve`` on a fresh copy of the directory and connects to the
port until it answers; a row gives the best wall time and another the best CPU seconds (user +
system of the server process until then, read from ``/proc``: the load of a shared machine
moves it far less than the wall time), each of :data:`RUNS` runs, the directories in turn.
Target (issue 36 §0): at most 1 s to listen on a quiet machine.
"""

from __future__ import annotations

import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.admin_stream import stream, write
from benchmarks.report import Row

BATCHES = 15_000
RUNS = 3
TARGET_SECONDS = 1.0


def write_requests(directory: Path, batches: int, seed: int = 5) -> int:
    """A log of ``batches`` batches of 1-4 records each (``admin_stream.stream``), each
    led by a request context; returns how many records (contexts aside) it holds."""
    rng = random.Random(seed)
    sizes = [rng.randint(1, 4) for _ in range(batches)]
    write(directory, stream(sum(sizes)), sizes)
    return sum(sizes)


def start_once(data: Path) -> tuple[float, float]:
    """Wall and CPU seconds from starting ``aclog serve`` on a copy of ``data`` until its port
    accepts a connection (the server is then killed)."""
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "data"
        shutil.copytree(data, copy)
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        command = [sys.executable, "-m", "aclog", "serve", "--data-dir", str(copy)]
        start = time.perf_counter()
        server = subprocess.Popen(
            [*command, "--listen", f"127.0.0.1:{port}"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            wall = _until_listening(server, port, start)
            return wall, _cpu_seconds(server.pid)
        finally:
            server.kill()
            server.wait(timeout=30)


def _until_listening(server: subprocess.Popen[bytes], port: int, start: float) -> float:
    while time.perf_counter() - start < 120:
        if server.poll() is not None:
            raise RuntimeError(f"aclog serve exited with {server.returncode} before listening")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
            return time.perf_counter() - start
        except OSError:
            time.sleep(0.01)
    raise RuntimeError("aclog serve did not listen within 120 s")


def _cpu_seconds(pid: int) -> float:
    """User + system seconds of process ``pid`` so far."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rows(suite: str, batches: int = BATCHES) -> list[Row]:
    """The serve-start rows (see the module) for a log of ``batches`` request batches."""
    with tempfile.TemporaryDirectory() as tmp:
        empty, log = Path(tmp) / "empty", Path(tmp) / "log"
        empty.mkdir()
        records = write_requests(log, batches)
        shapes = {empty: "empty data directory", log: f"{batches} batches of 1-4 records"}
        best = {d: (float("inf"), float("inf")) for d in shapes}
        for _ in range(RUNS):
            for directory in shapes:
                wall, cpu = start_once(directory)
                old = best[directory]
                best[directory] = (min(old[0], wall), min(old[1], cpu))
    out = []
    for directory, shape in shapes.items():
        wall, cpu = best[directory]
        note = f"best of {RUNS}, in turn; {records} records" if directory == log else ""
        note += f"; target <= {TARGET_SECONDS:g} s on a quiet machine" if directory == log else ""
        size = records if directory == log else 0
        out.append(Row(suite, "aclog serve start", shape, size, "seconds", wall, "s", note))
        out.append(Row(suite, "aclog serve start CPU", shape, size, "seconds", cpu, "s", note))
    return out
