"""The options the pipeline commands share, as typer annotations, and
:func:`pipeline_command`, which registers a command that declares only its own options: the
shared ones it asks for are added to its signature and handed to it parsed, as one
:class:`~aclog.tools.pipeline.shared.SharedOptions`.

Not thread-safe (typer registration happens at import). Cost: reading one signature per command
when its module is imported.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Literal

import typer

from aclog.tools.params import DATA_DIR_ENV, AtOffset, AtTime, JsonFlag, SourceFormat
from aclog.tools.pipeline.app import pipeline_app
from aclog.tools.pipeline.shared import SharedOptions

DataDirOption = Annotated[
    Path | None,
    typer.Option(
        "--data-dir", help="The aclog data directory.", envvar=DATA_DIR_ENV, readable=False
    ),
]
RecordsOption = Annotated[
    Path | None,
    typer.Option(
        "--records",
        help="Read the Parquet written by 'aclog pipeline records' instead of a data directory.",
        readable=False,
    ),
]
OutOption = Annotated[
    Path | None, typer.Option("--out", help="Write the result here (Parquet).", readable=False)
]
MasterOption = Annotated[
    str | None,
    typer.Option(
        "--master",
        help="Spark master: local[2] (default), local[*], spark://host:7077, yarn, ...",
        envvar="ACLOG_SPARK_MASTER",
    ),
]
SnapshotsFlag = Annotated[
    bool,
    typer.Option(
        "--snapshots/--no-snapshots",
        help="Start from the newest usable snapshot (default), or replay the full log.",
    ),
]
LimitOption = Annotated[int, typer.Option("--limit", help="Rows to show in the table.")]
ConfOption = Annotated[
    list[str] | None,
    typer.Option(
        "--conf",
        metavar="KEY=VALUE",
        help="A Spark setting for this run (repeat), e.g. --conf spark.executor.memory=2g.",
    ),
]
DriverHostOption = Annotated[
    str | None,
    typer.Option(
        "--driver-host",
        help="The address a cluster's executors reach this driver at (spark.driver.host and "
        "bindAddress); default 127.0.0.1 when the master is on this machine.",
        envvar="ACLOG_SPARK_DRIVER_HOST",
    ),
]

_SHARED: dict[str, tuple[Any, Any]] = {
    "data_dir": (DataDirOption, None),
    "records": (RecordsOption, None),
    "at_offset": (AtOffset, None),
    "at_time": (AtTime, None),
    "out": (OutOption, None),
    "snapshots": (SnapshotsFlag, True),
    "source_format": (SourceFormat, "auto"),
    "master": (MasterOption, None),
    "conf": (ConfOption, None),
    "driver_host": (DriverHostOption, None),
    "json_output": (JsonFlag, False),
    "limit": (LimitOption, 20),
}
"""Each shared option: its :class:`SharedOptions` field, declaration and default, in the order
every command's help lists them (a command's own options follow ``--data-dir`` and
``--records``)."""

Shared = Literal["records", "point", "out", "snapshots", "limit"]
"""The shared options a command may take besides those every one takes (``--data-dir``,
``--format``, ``--master``, ``--conf``, ``--driver-host``, ``--json``); ``point`` is
``--at-offset`` and ``--at-time``."""

_EVERY = ("data_dir", "source_format", "master", "conf", "driver_host", "json_output")
_FIELDS = {"point": ("at_offset", "at_time")}


def pipeline_command(
    name: str, *taken: Shared
) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Register ``aclog pipeline NAME``: the decorated function takes the
    :class:`SharedOptions` first, then its own options; its command takes the own options
    (those without a default first), the shared ones every command takes and those in
    ``taken``."""
    names = {*_EVERY, *(n for t in taken for n in _FIELDS.get(t, (t,)))}
    shared = [_parameter(n) for n in _SHARED if n in names]
    head = 2 if "records" in names else 1

    def register(function: Callable[..., None]) -> Callable[..., None]:
        own = list(inspect.signature(function, eval_str=True).parameters.values())[1:]
        needed = [p for p in own if p.default is p.empty]
        optional = [p for p in own if p.default is not p.empty]
        listed = [*needed, *shared[:head], *optional, *shared[head:]]
        params = [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in listed]

        @functools.wraps(function)
        def command(**values: Any) -> None:
            function(SharedOptions(**{n: values.pop(n) for n in names}), **values)

        command.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
        command.__annotations__ = {p.name: p.annotation for p in params}
        pipeline_app.command(name)(command)
        return command

    return register


def _parameter(name: str) -> inspect.Parameter:
    annotation, default = _SHARED[name]
    kind = inspect.Parameter.KEYWORD_ONLY
    return inspect.Parameter(name, kind, default=default, annotation=annotation)
