"""``aclog pipeline history``: one row per ACL and per SCRAM credential lifetime."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Annotated, Any

import typer

from aclog.tools.common import JsonFlag, SourceFormat
from aclog.tools.console import out, print_json, print_warning
from aclog.tools.pipeline.app import pipeline_app
from aclog.tools.pipeline.inputs import check_source, input_records
from aclog.tools.pipeline.options import (
    ConfOption,
    DataDirOption,
    DriverHostOption,
    LimitOption,
    MasterOption,
    OutOption,
    RecordsOption,
)
from aclog.tools.pipeline.output import collect_rows, show_rows, write_parquet
from aclog.tools.pipeline.spark import pipeline_modules, spark_for

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession


@pipeline_app.command("history")
def history_command(
    data_dir: DataDirOption = None,
    records: RecordsOption = None,
    out_path: OutOption = None,
    plot: Annotated[
        Path | None,
        typer.Option(
            "--plot", help="Draw counts over time and changes per author.", readable=False
        ),
    ] = None,
    source_format: SourceFormat = "auto",
    master: MasterOption = None,
    conf: ConfOption = None,
    driver_host: DriverHostOption = None,
    json_output: JsonFlag = False,
    limit: LimitOption = 20,
) -> None:
    """One row per ACL lifetime and per SCRAM credential lifetime: created, rotated, removed
    (a KRaft log records no authors: the by/from columns are empty)."""
    kraft = check_source(data_dir, records, source_format)
    with spark_for(master, conf, driver_host, out=out_path) as spark:
        pipeline = pipeline_modules()
        from pyspark import StorageLevel  # noqa: PLC0415

        source = _history_source(spark, pipeline, data_dir, records, kraft)
        source = source.persist(StorageLevel.MEMORY_AND_DISK)
        lifetimes = pipeline.history.history(source)
        if out_path is not None:
            lifetimes = write_parquet(lifetimes, out_path)
        if plot is not None:
            _plot(pipeline, lifetimes, source, plot, str(data_dir if records is None else records))
        rows = (
            collect_rows(lifetimes.orderBy("created_offset", "kind"))
            if json_output or not out_path
            else []
        )
        source.unpersist()
    _show_lifetimes(rows, out_path, plot, json_output, limit)


def _history_source(
    spark: SparkSession,
    pipeline: ModuleType,
    data_dir: Path | None,
    records: Path | None,
    kraft: bool,
) -> DataFrame:
    """The records the lifetimes are built from: a data directory's (only the record types
    history needs), or the Parquet records of ``--records``."""
    if records is None and data_dir is not None:
        found = pipeline.records_for_history(spark, data_dir, on_warning=print_warning, kraft=kraft)
        return found.frame  # type: ignore[no-any-return]
    return input_records(spark, data_dir, records)


def _show_lifetimes(
    rows: list[dict[str, Any]],
    out_path: Path | None,
    plot: Path | None,
    json_output: bool,
    limit: int,
) -> None:
    """Render what ``history`` found: JSON, a table, or where it was written and drawn."""
    if json_output:
        print_json({"lifetimes": rows})
    elif out_path is None:
        columns = ["kind", "acl_id", "user", "mechanism", "created_offset", "created_by"]
        show_rows(rows, [*columns, "rotations", "removed_offset", "removed_by"], limit, "lifetimes")
    else:
        out.print(f"wrote lifetimes to {out_path}", markup=False)
    if plot is not None and not json_output:
        out.print(f"drew {plot}", markup=False)


def _plot(
    pipeline: ModuleType, lifetimes: DataFrame, source: DataFrame, plot: Path, title: str
) -> None:
    """Draw the history picture: counts over time and changes per author."""
    points = [
        (r["kind"], r["time"], r["count"], r["added"], r["removed"])
        for r in pipeline.history.timeline(lifetimes).collect()
        if r["time"] is not None
    ]
    authors = [
        (r["author"], r["kind"], r["changes"])
        for r in pipeline.history.changes_by_author(source).collect()
    ]
    pipeline.plot.plot_history(points, authors, plot, title)
