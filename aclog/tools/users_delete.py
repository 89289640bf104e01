"""``aclog users delete``: delete a user's SCRAM credential for one mechanism.

The command's options only: its ``--help`` and the completion of its options import no more of
the library than the defaults they show; what it does is :mod:`aclog.tools.user_changes`,
imported when it runs.
"""

from __future__ import annotations

from typing import Annotated

import typer

from aclog.tools.params import BootstrapServer, CommandConfig, JsonFlag, OptionalDataDir
from aclog.tools.user_params import Mechanism
from aclog.tools.users import users_app


@users_app.command("delete")
def delete_user(
    user: Annotated[str, typer.Argument(help="The user name.")],
    mechanism: Mechanism,
    data_dir: OptionalDataDir = None,
    bootstrap_server: BootstrapServer = None,
    command_config: CommandConfig = None,
    json_output: JsonFlag = False,
) -> None:
    """Delete USER's credential for one mechanism."""
    from aclog.tools.user_changes import delete_credential  # noqa: PLC0415 - see the module docstring

    delete_credential(user, mechanism, (data_dir, bootstrap_server, command_config), json_output)
