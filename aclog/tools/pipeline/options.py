"""The options the pipeline commands share, as typer annotations.

Immutable values; thread-safe. Cost: nothing at run time.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from aclog.tools.params import DATA_DIR_ENV

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
