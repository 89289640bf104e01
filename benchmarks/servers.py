"""``aclog serve`` subprocesses for the benchmarks, and blocking one-request exchanges with them.

:func:`serve` starts the CLI on a free 127.0.0.1 port (``--json``: the ready line names the port)
and always stops it (SIGTERM, then kill); :func:`exchange` sends one request on a fresh socket
and decodes the answer with kafka-python's message classes; :func:`cpu_seconds` and
:func:`settle` watch a server process's CPU (the tests use them too).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import struct
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
LAUNCHER = "from aclog.tools.main import main; main()"


@dataclass
class Served:
    """A running ``aclog serve``: its process and the port it listens on."""

    process: subprocess.Popen[bytes]
    port: int


@contextmanager
def serve(
    workdir: Path,
    data_dir: Path,
    *args: str,
    name: str = "server",
    timeout: float = 60.0,
    launcher: str = LAUNCHER,
    environment: dict[str, str] | None = None,
) -> Iterator[Served]:
    """``aclog serve --data-dir DATA_DIR ARGS`` on a free port, ``User:ANONYMOUS`` a super
    user, warnings only on stderr (``workdir/NAME.err``); ``launcher`` is the Python that runs
    the CLI (:data:`benchmarks.stall.LAUNCHER` stalls its fsyncs), ``environment`` is added to
    the process's."""
    out, err = workdir / f"{name}.out", workdir / f"{name}.err"
    command = [sys.executable, "-c", launcher, "serve", "--data-dir", str(data_dir)]
    command += ["--listen", "127.0.0.1:0", "--json", "--super-users", "User:ANONYMOUS"]
    command += ["--log-level", "WARNING", *args]
    env = {**os.environ, **(environment or {}), "PYTHONPATH": str(REPO)}
    with out.open("wb") as stdout, err.open("wb") as stderr:
        process = subprocess.Popen(
            command, stdout=stdout, stderr=stderr, stdin=subprocess.DEVNULL, env=env
        )
    try:
        yield Served(process, _wait_ready(process, out, err, timeout))
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(5)


def _wait_ready(process: subprocess.Popen[bytes], out: Path, err: Path, timeout: float) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and process.poll() is None:
        text = out.read_text()
        if text.strip():
            listening = json.loads(text.splitlines()[0])["listening"]
            return int(str(listening).rsplit(":", 1)[1])
        time.sleep(0.05)
    raise RuntimeError(f"aclog serve did not start:\n{err.read_text(errors='replace')}")


def exchange(port: int, request: Any, response_class: Any, timeout: float = 10.0) -> Any:
    """Send ``request`` (a kafka-python request object) and return the decoded response."""
    request.with_header(correlation_id=1, client_id="bench")
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(bytes(request.encode(header=True, framed=True)))
        (size,) = struct.unpack(">i", _recv(sock, 4))
        payload = _recv(sock, size)
    return response_class.decode(payload, version=request.API_VERSION, header=True)


def _recv(sock: socket.socket, size: int) -> bytes:
    data = bytearray()
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        if not chunk:
            raise ConnectionError("the server closed the connection")
        data += chunk
    return bytes(data)


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds process ``pid`` has used, all threads (Linux ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def settle(pid: int, timeout: float = 10.0, window: float = 0.1) -> bool:
    """Wait until process ``pid`` uses less than a tenth of a core over ``window`` seconds (a
    server that has done the work its clients queued); whether it did within ``timeout``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        before = cpu_seconds(pid)
        time.sleep(window)
        if cpu_seconds(pid) - before < window / 10:
            return True
    return False
