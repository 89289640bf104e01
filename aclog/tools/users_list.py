"""``aclog users list``: users with their mechanisms and iteration counts, from a data
directory's committed state or a cluster.

The command's options only: its ``--help`` and the completion of its options import no more of
the library than the defaults they show; what it does is :mod:`aclog.tools.users_listing`,
imported when it runs.
"""

from __future__ import annotations

from typing import Annotated

import typer

from aclog.tools.params import BootstrapServer, CommandConfig, JsonFlag, OptionalDataDir
from aclog.tools.users import users_app


@users_app.command("list")
def list_users(
    users: Annotated[list[str] | None, typer.Argument(help="Only these users.")] = None,
    data_dir: OptionalDataDir = None,
    bootstrap_server: BootstrapServer = None,
    command_config: CommandConfig = None,
    json_output: JsonFlag = False,
) -> None:
    """List users with their mechanisms and iteration counts (reads without locking)."""
    from aclog.tools.users_listing import list_credentials  # noqa: PLC0415 - see the module docstring

    list_credentials(users or None, (data_dir, bootstrap_server, command_config), json_output)
