"""The ``aclog pipeline`` command group, which every pipeline command module registers with.

Not thread-safe (typer registration happens at import). Cost: nothing at run time.
"""

from __future__ import annotations

import typer

from aclog.tools.commands import COMMANDS
from aclog.tools.console import app

pipeline_app = typer.Typer(help=COMMANDS["pipeline"].help, no_args_is_help=True)
app.add_typer(pipeline_app, name="pipeline")
