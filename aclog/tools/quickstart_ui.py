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
from collections.abc import Callable
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
    bootstrap = _first_found(server, STARTUP_SECONDS, _bootstrap_of)
    if bootstrap is None:
        server.wait(timeout=5)
    return bootstrap


def _bootstrap_of(line: str) -> str | None:
    """The address in the server's ``--json`` line (its logs and anything else: ``None``)."""
    try:
        info: Any = json.loads(line)
    except json.JSONDecodeError:
        return None
    if isinstance(info, dict) and "bootstrap_servers" in info:
        return str(info["bootstrap_servers"])
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
    url = _first_found(ui, READY_SECONDS, _url_of)
    if url is not None and ui.stdout is not None:
        # Keep reading what it prints later, so a full pipe can never stall it.
        threading.Thread(target=_drain, args=(ui.stdout,), daemon=True).start()
    return url


def _url_of(line: str) -> str | None:
    found = _SERVING.match(line.strip())
    return None if found is None else found.group(1)


def _first_found(
    process: subprocess.Popen[str], seconds: float, find: Callable[[str], str | None]
) -> str | None:
    """What ``find`` finds in the first line of ``process``'s output that it finds anything
    in; ``None`` when the output ends first, or after ``seconds``."""
    stream: IO[str] | None = process.stdout
    deadline = time.monotonic() + seconds
    while stream is not None and time.monotonic() < deadline:
        line = stream.readline()
        if not line:
            break
        found = find(line)
        if found is not None:
            return found
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
