"""``aclog snapshot``: the command group only, so ``aclog snapshot --help`` lists its commands
from their table without importing them; the commands are :mod:`aclog.tools.snapshot_command`."""

from __future__ import annotations

from aclog.tools.commands import COMMANDS
from aclog.tools.console import app
from aclog.tools.lazy import Lazy, lazy_typer

SNAPSHOT_COMMANDS = {
    "create": Lazy(
        "aclog.tools.snapshot_command",
        "Write a snapshot of the committed state now (takes the writer lock).",
    ),
    "list": Lazy(
        "aclog.tools.snapshot_command",
        "List snapshots, oldest first, with whether each one verifies; exit 1 if any is corrupt.",
    ),
    "verify": Lazy(
        "aclog.tools.snapshot_command", "Verify every snapshot; exit 1 if any is corrupt."
    ),
}
"""The ``aclog snapshot`` commands."""

snapshot_app = lazy_typer(SNAPSHOT_COMMANDS, help=COMMANDS["snapshot"].help, no_args_is_help=True)
app.add_typer(snapshot_app, name="snapshot")
