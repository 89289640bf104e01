"""``aclog snapshot``: the command group only, so ``aclog snapshot --help`` lists its commands
from their table without importing them; the commands are :mod:`aclog.tools.snapshot_command`."""

from __future__ import annotations

from aclog.tools.commands import COMMANDS, SNAPSHOT_COMMANDS
from aclog.tools.console import app
from aclog.tools.lazy import lazy_typer

snapshot_app = lazy_typer(SNAPSHOT_COMMANDS, help=COMMANDS["snapshot"].help, no_args_is_help=True)
app.add_typer(snapshot_app, name="snapshot")
