"""``aclog ui``: the read-only web view of a data directory (:mod:`aclog.ui`). The only
module that imports :mod:`aclog.ui` (an import-linter contract)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from aclog.tools.console import EXIT_IO, EXIT_USAGE, app, fail, fail_os, print_line
from aclog.tools.params import DataDir


@app.command()
def ui(
    data_dir: DataDir,
    host: Annotated[
        str, typer.Option(help="The address to listen on; another than loopback needs a token.")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="The port (0: any free one).", min=0, max=65535)] = 8080,
    token_file: Annotated[
        Path | None,
        typer.Option(
            help="A file holding the token (16+ characters) every request must carry.",
            readable=False,
        ),
    ] = None,
) -> None:
    """Serve a read-only web view of the log: the state at any moment, changes, explain,
    who-can, reach, diff, lint and a timeline.

    Never takes the writer's lock and never writes: run it beside `aclog serve` or `follow`,
    and each page shows the log as it is when asked."""
    # Imported here, so that no other command pays at start for Starlette, uvicorn and Jinja2.
    from aclog.ui import bind, serve_ui  # noqa: PLC0415

    token = _checked(data_dir, host, token_file)
    try:
        sock = bind(host, port)
    except OSError as error:
        fail(f"cannot listen on {host}:{port}: {error.strerror or error}", EXIT_IO)
    serve_ui(
        data_dir, sock, token, lambda url: print_line(f"aclog ui: serving {data_dir} at {url}")
    )


def _checked(data_dir: Path, host: str, token_file: Path | None) -> str | None:
    """The token to require (``None``: none), after exiting 2 on what must not be served: a
    directory that is no aclog log, or an address other than loopback without a token."""
    from aclog.kraft import is_kraft_path  # noqa: PLC0415 - the library on a run, not --help
    from aclog.tools.data_dirs import require_log  # noqa: PLC0415
    from aclog.ui import TokenError, is_loopback, read_token  # noqa: PLC0415  (as above)

    require_log(data_dir)
    if is_kraft_path(data_dir):
        fail(
            f"{data_dir} is a KRaft metadata directory; the UI reads aclog data directories: "
            "copy it into one with aclog import --from-kraft DIR --data-dir NEW [--follow]",
            EXIT_USAGE,
        )
    if token_file is None and not is_loopback(host):
        fail(
            f"refusing to listen on {host} without --token-file: anyone who can reach it would "
            "read the ACL history; give --token-file FILE, or listen on 127.0.0.1",
            EXIT_USAGE,
        )
    try:
        return None if token_file is None else read_token(token_file)
    except TokenError as error:
        fail(str(error), EXIT_USAGE)
    except OSError as error:  # it exists but cannot be read: I/O, as every other read
        fail_os("read", error)
