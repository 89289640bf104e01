"""The ``aclog pipeline`` command group, which every pipeline command module registers with;
its commands are imported on first use (:mod:`aclog.tools.lazy`).

Not thread-safe (typer registration happens at import). Cost: nothing at run time.
"""

from __future__ import annotations

from aclog.tools.commands import COMMANDS, PIPELINE_COMMANDS
from aclog.tools.console import app
from aclog.tools.lazy import lazy_typer

pipeline_app = lazy_typer(PIPELINE_COMMANDS, help=COMMANDS["pipeline"].help, no_args_is_help=True)
app.add_typer(pipeline_app, name="pipeline")
