"""The ``aclog pipeline`` command group, which every pipeline command module registers with;
its commands are imported on first use (:mod:`aclog.tools.lazy`).

Not thread-safe (typer registration happens at import). Cost: nothing at run time.
"""

from __future__ import annotations

from aclog.tools.commands import COMMANDS
from aclog.tools.console import app
from aclog.tools.lazy import Lazy, lazy_typer

_PIPELINE = "aclog.tools.pipeline."
PIPELINE_COMMANDS = {
    "records": Lazy(
        _PIPELINE + "records",
        "Every record with offset, epoch, time, author, type and fields (no salts or keys); a "
        "KRaft log's records have no author, and each of its other records is one UNKNOWN row.",
    ),
    "state": Lazy(
        _PIPELINE + "state",
        "ACLs and SCRAM users (no secrets) as of a point; the same answer as 'aclog replay'.",
    ),
    "history": Lazy(
        _PIPELINE + "history",
        "One row per ACL lifetime and per SCRAM credential lifetime: created, rotated, removed "
        "(a KRaft log records no authors: the by/from columns are empty).",
    ),
    "access": Lazy(
        _PIPELINE + "access",
        "Every principal x resource x operation decision and its deciding ACL, as 'explain'.",
    ),
    "orphans": Lazy(
        _PIPELINE + "orphans",
        "ACLs naming users without credentials, credentials no ACL names, ACLs on nothing.",
    ),
    "who-can": Lazy(
        _PIPELINE + "questions",
        "'aclog who-can' for every resource and operation asked, as one job.",
    ),
    "reach": Lazy(_PIPELINE + "questions", "'aclog reach' for every principal asked, as one job."),
    "timeline": Lazy(
        _PIPELINE + "questions",
        "'aclog timeline' for every principal x resource x operation asked, as one job.",
    ),
    "diff": Lazy(
        _PIPELINE + "changes",
        "'aclog diff' as a job: ACLs and credentials added, removed and changed, with who and "
        "when (a KRaft log records no authors: \"author\" is null, as in 'aclog diff').",
    ),
    "lint": Lazy(
        _PIPELINE + "lint",
        "'aclog lint' as a job: the ACLs linted per resource type in tasks, credentials dated.",
    ),
}
"""The ``aclog pipeline`` commands."""

pipeline_app = lazy_typer(PIPELINE_COMMANDS, help=COMMANDS["pipeline"].help, no_args_is_help=True)
app.add_typer(pipeline_app, name="pipeline")
