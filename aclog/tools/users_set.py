"""``aclog users set``: create or replace a user's SCRAM credential for one mechanism.

The command's options only: its ``--help`` and the completion of its options import no more of
the library than the defaults they show; what it does is :mod:`aclog.tools.user_changes`,
imported when it runs.
"""

from __future__ import annotations

from typing import Annotated

import typer

from aclog.controller import DEFAULT_ITERATIONS
from aclog.tools.params import BootstrapServer, CommandConfig, JsonFlag, OptionalDataDir
from aclog.tools.user_params import Mechanism
from aclog.tools.users import users_app


@users_app.command("set")
def set_user(
    user: Annotated[str, typer.Argument(help="The user name (principal User:<name>).")],
    mechanism: Mechanism,
    data_dir: OptionalDataDir = None,
    bootstrap_server: BootstrapServer = None,
    command_config: CommandConfig = None,
    iterations: Annotated[int, typer.Option(help="PBKDF2 iterations, 4096 to 16384.")] = (
        DEFAULT_ITERATIONS
    ),
    password: Annotated[
        str | None, typer.Option("--password", help="The password (visible in `ps`).")
    ] = None,
    password_stdin: Annotated[
        bool, typer.Option("--password-stdin", help="Read the password from stdin.")
    ] = False,
    json_output: JsonFlag = False,
) -> None:
    """Create or replace USER's credential for one mechanism (a missing data directory is
    created)."""
    from aclog.tools.user_changes import set_credential  # noqa: PLC0415 - see the module docstring

    set_credential(
        user,
        mechanism,
        (data_dir, bootstrap_server, command_config),
        iterations,
        password,
        password_stdin,
        json_output,
    )
