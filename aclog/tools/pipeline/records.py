"""``aclog pipeline records``: every record of a data directory, written as Parquet."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from aclog.tools.console import print_json, print_line, print_warning
from aclog.tools.params import JsonFlag, SourceFormat
from aclog.tools.pipeline.app import pipeline_app
from aclog.tools.pipeline.inputs import check_source
from aclog.tools.pipeline.options import (
    ConfOption,
    DataDirOption,
    DriverHostOption,
    MasterOption,
)
from aclog.tools.pipeline.spark import pipeline_modules, spark_for


@pipeline_app.command("records")
def records_command(
    out_path: Annotated[
        Path, typer.Option("--out", help="Write the records here (Parquet).", readable=False)
    ],
    data_dir: DataDirOption = None,
    snapshots: Annotated[
        str,
        typer.Option(
            "--snapshots",
            help="none, all, or snapshot paths (comma-separated; .checkpoint files with "
            "--format kraft).",
        ),
    ] = "none",
    source_format: SourceFormat = "auto",
    master: MasterOption = None,
    conf: ConfOption = None,
    driver_host: DriverHostOption = None,
    json_output: JsonFlag = False,
) -> None:
    """Every record with offset, epoch, time, author, type and fields (no salts or keys); a
    KRaft log's records have no author, and each of its other records is one UNKNOWN row."""
    kraft = check_source(data_dir, None, source_format)
    with spark_for(master, conf, driver_host, out=out_path) as spark:
        pipeline = pipeline_modules()
        count = pipeline.records_files.write_records(
            spark, data_dir, out_path, snapshots=snapshots, kraft=kraft, on_warning=print_warning
        )
    if json_output:
        print_json({"out": str(out_path), "records": count})
    else:
        print_line(f"wrote {count} records to {out_path}")
