"""``aclog acls``: kafka-acls-style ACL management on a data directory, or on any Kafka cluster
with ``--bootstrap-server`` (see :mod:`aclog.tools.remote`). This module holds only the command
group, so ``aclog acls --help`` lists the commands from their table without importing them; the
commands are :mod:`aclog.tools.acls_add`, :mod:`aclog.tools.acls_remove` and
:mod:`aclog.tools.acls_list`, and the options they share are in :mod:`aclog.tools.acl_params`."""

from __future__ import annotations

from aclog.tools.commands import COMMANDS
from aclog.tools.console import app
from aclog.tools.lazy import Lazy, lazy_typer

ACLS_COMMANDS = {
    "add": Lazy(
        "aclog.tools.acls_add",
        "Add ACLs. Adding an ACL that already exists succeeds and writes nothing.",
    ),
    "list": Lazy(
        "aclog.tools.acls_list",
        "List ACLs; with --resource-pattern-type match, every ACL that applies to the resource.",
    ),
    "remove": Lazy(
        "aclog.tools.acls_remove",
        "Remove the ACLs that match; without principals, every ACL on the named resources.",
    ),
}
"""The ``aclog acls`` commands."""

acls_app = lazy_typer(ACLS_COMMANDS, help=COMMANDS["acls"].help, no_args_is_help=True)
app.add_typer(acls_app, name="acls")
