"""``aclog users set|delete|list``: SCRAM credentials on a data directory (kafka-configs style),
or on any Kafka cluster with ``--bootstrap-server`` (see :mod:`aclog.tools.remote`). This module
holds only the command group, so ``aclog users --help`` lists the commands from their table
without importing them: :mod:`aclog.tools.users_set`, :mod:`aclog.tools.users_delete` and
:mod:`aclog.tools.users_list`, with what they share in :mod:`aclog.tools.user_params`.

The password never reaches the log or the network: the CLI salts and hashes it (RFC 5802
``Hi``) the way a Kafka admin client does, and the controller stores only StoredKey and
ServerKey.
"""

from __future__ import annotations

from aclog.tools.commands import COMMANDS
from aclog.tools.console import app
from aclog.tools.lazy import Lazy, lazy_typer

USERS_COMMANDS = {
    "set": Lazy(
        "aclog.tools.users_set",
        "Create or replace USER's credential for one mechanism (a missing data directory is "
        "created).",
    ),
    "delete": Lazy("aclog.tools.users_delete", "Delete USER's credential for one mechanism."),
    "list": Lazy(
        "aclog.tools.users_list",
        "List users with their mechanisms and iteration counts (reads without locking).",
    ),
}
"""The ``aclog users`` commands."""

users_app = lazy_typer(USERS_COMMANDS, help=COMMANDS["users"].help, no_args_is_help=True)
app.add_typer(users_app, name="users")
