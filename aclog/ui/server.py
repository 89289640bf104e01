"""Running the UI: uvicorn on one bound socket, until SIGINT or SIGTERM.

Not thread-safe to call twice in one process (uvicorn installs signal handlers). Cost: one
process serving requests on Starlette's thread pool.
"""

from __future__ import annotations

import socket
from collections.abc import Callable
from pathlib import Path

import uvicorn

from aclog.ui.app import create_app


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port`` (port 0: any free one); ``OSError`` when the
    address cannot be had (in use, not this machine's)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host.strip("[]"), port))
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    return sock


def serve_ui(
    data_dir: Path,
    sock: socket.socket,
    token: str | None,
    on_ready: Callable[[str], None] = lambda url: None,
) -> None:
    """Serve the UI over ``data_dir`` on the bound ``sock`` until SIGINT or SIGTERM;
    ``on_ready`` hears the URL first. The state at the log's end is built from the start,
    beside uvicorn's own start."""
    config = uvicorn.Config(
        create_app(data_dir, token, warm=True),
        log_level="warning",
        server_header=False,
        timeout_graceful_shutdown=5,
    )
    host, port = sock.getsockname()[:2]
    on_ready(f"http://{f'[{host}]' if ':' in host else host}:{port}/")
    uvicorn.Server(config).run(sockets=[sock])
