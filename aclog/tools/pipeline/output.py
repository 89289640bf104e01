"""What the pipeline commands print and write: JSON-ready rows, tables, Parquet.

Thread-safe (no shared state). Cost: collecting the rows shown to the driver.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.table import Table
from rich.text import Text

from aclog.tools.console import out, print_table
from aclog.tools.visible import visible

if TYPE_CHECKING:
    from pyspark.sql import DataFrame


def _jsonable(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    return value


def collect_rows(frame: DataFrame) -> list[dict[str, Any]]:
    """Collect ``frame`` as JSON-ready dicts; timestamps become milliseconds since the epoch
    (as ``aclog replay --json`` prints them), whatever the session's time zone."""
    from pyspark.sql import functions as F  # noqa: PLC0415
    from pyspark.sql.types import TimestampType  # noqa: PLC0415

    columns = [
        F.unix_millis(F.col(f.name)).alias(f.name)
        if isinstance(f.dataType, TimestampType)
        else F.col(f.name)
        for f in frame.schema.fields
    ]
    return [
        {k: _jsonable(v) for k, v in row.asDict().items()}
        for row in frame.select(*columns).collect()
    ]


def write_parquet(frame: DataFrame, path: Path) -> DataFrame:
    """Write ``frame`` as Parquet at ``path`` (made absolute here, on the driver: executors run
    in their own working directories) and return the written data (so a following ``--json``
    reads the file instead of computing the job again)."""
    where = str(path.resolve())
    frame.write.mode("overwrite").parquet(where)
    return frame.sparkSession.read.parquet(where)


def show_rows(
    rows: Sequence[dict[str, Any]], columns: Sequence[str], limit: int, what: str
) -> None:
    """A table of the first ``limit`` rows, titled with how many there are."""
    table = Table(*columns, title=f"{len(rows)} {what}", title_justify="left")
    for row in rows[:limit]:
        # Text cells: names are neither rich markup nor control sequences.
        table.add_row(*(_cell(row.get(c)) for c in columns))
    print_table(table)
    if len(rows) > limit:
        out.print(f"... {len(rows) - limit} more; use --json or --out for all", markup=False)


def _cell(value: Any) -> Text:
    return Text("" if value is None else visible(str(value)))
