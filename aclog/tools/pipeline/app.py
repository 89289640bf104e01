"""The ``aclog pipeline`` command group, which every pipeline command module registers with.

Not thread-safe (typer registration happens at import). Cost: nothing at run time.
"""

from __future__ import annotations

import typer

from aclog.tools.console import app

pipeline_app = typer.Typer(
    help=(
        "Spark jobs over a data directory: records, state, history, access, orphans, who-can, "
        "reach, timeline, diff, lint."
    ),
    no_args_is_help=True,
)
app.add_typer(pipeline_app, name="pipeline")
