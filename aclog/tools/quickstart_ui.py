"""The processes ``aclog quickstart`` (``make run``) starts: ``aclog serve`` for the walk-through
to drive, and beside it the web view, ``aclog ui`` on the same data directory, so a person can
look at what the walk-through just committed; each as its own process, read and stopped here.

Not thread-safe: the quickstart starts, reads and stops them from its one thread. Cost: a
process start each (the UI imports Starlette, uvicorn and Jinja2: about a second).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO, Any

STARTUP_SECONDS = 60.0
"""How long the server may take to say where it listens."""
READY_SECONDS = 30.0
_SERVING = re.compile(r"^aclog ui: serving .* at (http://\S+)$")
"""The line ``aclog ui`` prints once it listens, ending with its URL."""


def start_server(data_dir: Path, listen: str) -> subprocess.Popen[str]:
    """``aclog serve`` on ``data_dir`` at ``listen``, ``User:ANONYMOUS`` a super user, its
    ``--json`` line read by :func:`server_bootstrap`."""
    command = [
        sys.executable,
        "-m",
        "aclog.tools.main",
        "serve",
        "--data-dir",
        str(data_dir),
        "--listen",
        listen,
        "--super-users",
        "User:ANONYMOUS",
        "--json",
    ]
    return subprocess.Popen(command, stdout=subprocess.PIPE, text=True)


def server_bootstrap(server: subprocess.Popen[str]) -> str | None:
    """Where the server listens once it says so, or ``None`` when it stopped or did not say so
    within :data:`STARTUP_SECONDS` (its error is on the terminal: stderr)."""
    stream: IO[str] | None = server.stdout
    deadline = time.monotonic() + STARTUP_SECONDS
    while stream is not None and time.monotonic() < deadline:
        line = stream.readline()
        if not line:
            break
        try:
            info: dict[str, Any] = json.loads(line)
        except json.JSONDecodeError:
            continue
        if "bootstrap_servers" in info:
            return str(info["bootstrap_servers"])
    server.wait(timeout=5)
    return None


def start_ui(data_dir: Path, host: str, port: int) -> subprocess.Popen[str]:
    """``aclog ui`` on ``data_dir`` at ``host:port``, its output read by :func:`ui_url`."""
    command = [
        sys.executable,
        "-m",
        "aclog.tools.main",
        "ui",
        "--data-dir",
        str(data_dir),
        "--host",
        host,
        "--port",
        str(port),
    ]
    # Its warnings and errors go to the terminal (stderr is inherited); stdout is read here.
    return subprocess.Popen(command, stdout=subprocess.PIPE, text=True, bufsize=1)


def ui_url(ui: subprocess.Popen[str]) -> str | None:
    """The URL the UI serves at once it listens, or ``None`` when it did not start within
    :data:`READY_SECONDS` (its error, such as a port in use, is on the terminal: stderr)."""
    stream: IO[str] | None = ui.stdout
    deadline = time.monotonic() + READY_SECONDS
    while stream is not None and time.monotonic() < deadline:
        line = stream.readline()
        if not line:
            break
        found = _SERVING.match(line.strip())
        if found is not None:
            # Keep reading what it prints later, so a full pipe can never stall it.
            threading.Thread(target=_drain, args=(stream,), daemon=True).start()
            return found.group(1)
    return None


def _drain(stream: IO[str]) -> None:
    for _ in stream:
        pass


def stop(process: subprocess.Popen[str]) -> None:
    """Stop a child the quickstart started: SIGTERM, then SIGKILL after 15 s."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)
