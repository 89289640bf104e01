"""``aclog users delete``: delete a user's SCRAM credential for one mechanism."""

from __future__ import annotations

from typing import Annotated

import typer

from aclog.controller import ScramDeletion
from aclog.tools.params import BootstrapServer, CommandConfig, JsonFlag, OptionalDataDir
from aclog.tools.remote import choose_target, open_admin
from aclog.tools.user_params import Mechanism, check_name, parse_mechanism, render_results
from aclog.tools.users import users_app
from aclog.tools.writing import local_caller


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
    deletion = ScramDeletion(check_name(user, "USER"), parse_mechanism(mechanism))
    target = choose_target(data_dir, bootstrap_server, command_config)
    with open_admin(target) as admin:
        results = admin.alter_scram([], [deletion], local_caller("aclog users delete"))
    name = deletion.mechanism.mechanism_name
    render_results(results, json_output, f"deleted {{user}}'s {name} credential")
