"""``aclog pipeline ...``: the Spark jobs of :mod:`aclog.pipeline` as commands.

Each command reads a data directory (or, with ``--records``, the Parquet that ``aclog pipeline
records`` wrote), runs one job, writes Parquet under ``--out`` and, for small results, prints a
table or ``--json``. Spark runs locally on two cores unless ``--master`` (or
``$ACLOG_SPARK_MASTER``) names a cluster. ``aclog.pipeline`` (and pyspark) is imported only when
a pipeline command runs, so the rest of the CLI works without the ``spark`` extra.

Exit codes as everywhere: 1 the job failed on the data (a corrupt log, no usable snapshot), 2 a
usage error, 3 no Java, no pyspark, or an I/O or Spark failure.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Table
from rich.text import Text

from aclog.authorizer import parse_super_users
from aclog.records import AclOperation, ResourceType
from aclog.tools.acl_options import OptionError, read_inventory
from aclog.tools.common import DATA_DIR_ENV, AtOffset, AtTime, JsonFlag, parse_time
from aclog.tools.console import (
    EXIT_FAILURE,
    EXIT_IO,
    EXIT_USAGE,
    app,
    fail,
    out,
    print_json,
    print_line,
    print_table,
)
from aclog.tools.progress import waiting
from aclog.tools.visible import visible

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

pipeline_app = typer.Typer(
    help="Spark jobs over a data directory: records, state, history, access, orphans.",
    no_args_is_help=True,
)
app.add_typer(pipeline_app, name="pipeline")

DataDirOption = Annotated[
    Path | None,
    typer.Option("--data-dir", help="The aclog data directory.", envvar=DATA_DIR_ENV),
]
RecordsOption = Annotated[
    Path | None,
    typer.Option(
        "--records",
        help="Read the Parquet written by 'aclog pipeline records' instead of a data directory.",
    ),
]
OutOption = Annotated[Path | None, typer.Option("--out", help="Write the result here (Parquet).")]
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


def _modules() -> ModuleType:
    """:mod:`aclog.pipeline`, or exit 3 with how to install it."""
    try:
        import aclog.pipeline  # noqa: PLC0415 - imports pyspark, which the rest of the CLI avoids
    except ImportError as error:
        fail(
            f"the pipeline needs the spark extra ({error}); install it with "
            "pip install 'aclog[spark]'",
            EXIT_IO,
        )
    return aclog.pipeline


def _short(error: BaseException) -> str:
    """The useful line of a Spark error: the Python exception raised in a task, if any."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    for line in reversed(lines):
        if "Error: " in line or "Exception: " in line:
            return line
    return lines[0] if lines else type(error).__name__


@contextmanager
def _spark(master: str | None) -> Iterator[SparkSession]:
    """The session for one command, with Spark and pipeline errors turned into exits."""
    pipeline = _modules()
    from py4j.protocol import Py4JError  # type: ignore[import-untyped]  # noqa: PLC0415
    from pyspark.errors import PySparkException  # noqa: PLC0415

    try:
        with ExitStack() as stack:
            with waiting(f"starting Spark ({master or pipeline.session.DEFAULT_MASTER})"):
                spark = stack.enter_context(pipeline.spark_session(master))
            yield spark
    except pipeline.JavaMissingError as error:
        fail(str(error), EXIT_IO)
    except pipeline.PipelineError as error:
        fail(str(error), EXIT_FAILURE)
    except PySparkException as error:
        fail(f"the Spark job failed: {_short(error)}", EXIT_FAILURE)
    except Py4JError as error:
        # A task's Python exception sometimes arrives unconverted (wrapped by a broadcast or a
        # cache build): still a failure on the data, not of Spark itself.
        text = str(error)
        if "PythonException" in text or "Python worker" in text:
            fail(f"the Spark job failed: {_short(error)}", EXIT_FAILURE)
        fail(f"Spark failed: {_short(error)}", EXIT_IO)
    except OSError as error:
        fail(str(error), EXIT_IO)


def _input(
    spark: SparkSession,
    data_dir: Path | None,
    records: Path | None,
) -> DataFrame:
    """The records to read: ``--records`` Parquet, else the whole ``--data-dir``."""
    pipeline = _modules()
    if records is not None:
        return pipeline.read_parquet_records(spark, records)  # type: ignore[no-any-return]
    if data_dir is None:
        fail("give --data-dir (or --records)", EXIT_USAGE)
    if not data_dir.is_dir():
        fail(f"no data directory at {data_dir}", EXIT_USAGE)
    return pipeline.read_records(spark, data_dir)  # type: ignore[no-any-return]


def _state(
    spark: SparkSession,
    data_dir: Path | None,
    records: Path | None,
    point: tuple[int | None, int | None],
    snapshots: bool,
) -> Any:
    """The :class:`~aclog.pipeline.state.State` as of ``point`` (offset, time in ms), from the
    snapshot ``aclog replay`` would start from plus the log after it; from ``--records``
    Parquet, from the log rows it holds (snapshot rows there are ignored)."""
    pipeline = _modules()
    if records is not None or data_dir is None:
        from pyspark.sql import functions as F  # noqa: PLC0415

        frame = _input(spark, data_dir, records).filter(F.col("source") == "log")
        source = pipeline.Records(frame, None)
    elif not data_dir.is_dir():
        fail(f"no data directory at {data_dir}", EXIT_USAGE)
    else:
        source = pipeline.records_as_of(
            spark,
            data_dir,
            at_offset=point[0],
            at_time_ms=point[1],
            use_snapshots=snapshots,
            on_warning=_warn,
            columns=pipeline.state.STATE_INPUT_COLUMNS,
        )
    # Cached when the data source decodes the records (each read would decode the log again);
    # Parquet is cheap to read again.
    return pipeline.state.state(source.frame, *point, persist=records is None)


def _check_source(data_dir: Path | None, records: Path | None) -> None:
    """Usage errors before Spark starts: a data directory or a records Parquet must exist."""
    if records is not None:
        if not records.exists():
            fail(f"no Parquet records at {records}", EXIT_USAGE)
    elif data_dir is None:
        fail("give --data-dir (or --records)", EXIT_USAGE)
    elif not data_dir.is_dir():
        fail(f"no data directory at {data_dir}", EXIT_USAGE)


def _warn(message: str) -> None:
    print_line(f"aclog: warning: {message}", stderr=True)


def _jsonable(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    return value


def _rows(frame: DataFrame) -> list[dict[str, Any]]:
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


def _write(frame: DataFrame, path: Path) -> DataFrame:
    """Write ``frame`` as Parquet and return the written data (so a following ``--json`` reads
    the file instead of computing the job again)."""
    frame.write.mode("overwrite").parquet(str(path))
    return frame.sparkSession.read.parquet(str(path))


def _show(rows: Sequence[dict[str, Any]], columns: Sequence[str], limit: int, what: str) -> None:
    table = Table(*columns, title=f"{len(rows)} {what}", title_justify="left")
    for row in rows[:limit]:
        # Text cells: names are neither rich markup nor control sequences.
        table.add_row(*(_cell(row.get(c)) for c in columns))
    print_table(table)
    if len(rows) > limit:
        out.print(f"... {len(rows) - limit} more; use --json or --out for all", markup=False)


def _cell(value: Any) -> Text:
    return Text("" if value is None else visible(str(value)))


def _time(at_time: str | None) -> int | None:
    return None if at_time is None else parse_time(at_time)


@pipeline_app.command("records")
def records_command(
    out_path: Annotated[Path, typer.Option("--out", help="Write the records here (Parquet).")],
    data_dir: DataDirOption = None,
    snapshots: Annotated[
        str, typer.Option("--snapshots", help="none, all, or snapshot paths (comma-separated).")
    ] = "none",
    master: MasterOption = None,
    json_output: JsonFlag = False,
) -> None:
    """Every record with offset, epoch, time, author, type and fields (no salts or keys)."""
    _check_source(data_dir, None)
    with _spark(master) as spark:
        pipeline = _modules()
        frame = pipeline.read_records(spark, data_dir, snapshots=snapshots)
        _write(frame, out_path)
        count = spark.read.parquet(str(out_path)).count()
    if json_output:
        print_json({"out": str(out_path), "records": count})
    else:
        out.print(f"wrote {count} records to {out_path}", markup=False)


@pipeline_app.command("state")
def state_command(
    data_dir: DataDirOption = None,
    records: RecordsOption = None,
    at_offset: AtOffset = None,
    at_time: AtTime = None,
    out_path: OutOption = None,
    snapshots: SnapshotsFlag = True,
    master: MasterOption = None,
    json_output: JsonFlag = False,
) -> None:
    """ACLs and SCRAM users (no secrets) as of a point; the same answer as 'aclog replay'."""
    at_time_ms = _time(at_time)
    _check_source(data_dir, records)
    with _spark(master) as spark:
        pipeline = _modules()
        result = _state(spark, data_dir, records, (at_offset, at_time_ms), snapshots)
        try:
            acls, users = result.acls, result.users
            if out_path is not None:
                written = pipeline.state_files.write_state(result, out_path)
                if not json_output:
                    _state_line(written.to_dict(), f"; written to {out_path}")
                    return
                acls = spark.read.parquet(str(out_path / "acls"))
                users = spark.read.parquet(str(out_path / "users"))
            summary = pipeline.state.state_dict(acls, users, result.provenance)
        finally:
            result.unpersist()
    if json_output:
        print_json(summary)
        return
    credentials = sum(len(user["credentials"]) for user in summary["users"])
    _state_line({**summary, "acls": len(summary["acls"]), "credentials": credentials}, "")


def _state_line(summary: dict[str, Any], written: str) -> None:
    out.print(
        f"state at offset {summary['offset']} (epoch {summary['epoch']}): "
        f"{summary['acls']} ACLs, {summary['credentials']} SCRAM credentials{written}",
        markup=False,
    )


@pipeline_app.command("history")
def history_command(
    data_dir: DataDirOption = None,
    records: RecordsOption = None,
    out_path: OutOption = None,
    plot: Annotated[
        Path | None, typer.Option("--plot", help="Draw counts over time and changes per author.")
    ] = None,
    master: MasterOption = None,
    json_output: JsonFlag = False,
    limit: LimitOption = 20,
) -> None:
    """One row per ACL lifetime and per SCRAM credential lifetime: created, rotated, removed."""
    _check_source(data_dir, records)
    with _spark(master) as spark:
        pipeline = _modules()
        if records is None and data_dir is not None and data_dir.is_dir():
            source = pipeline.records_for_history(spark, data_dir, on_warning=_warn).frame
        else:
            source = _input(spark, data_dir, records)
        from pyspark import StorageLevel  # noqa: PLC0415

        source = source.persist(StorageLevel.MEMORY_AND_DISK)
        lifetimes = pipeline.history.history(source)
        if out_path is not None:
            lifetimes = _write(lifetimes, out_path)
        if plot is not None:
            from aclog.pipeline.plot import plot_history  # noqa: PLC0415

            points = [
                (r["kind"], r["time"], r["count"], r["added"], r["removed"])
                for r in pipeline.history.timeline(lifetimes).collect()
                if r["time"] is not None
            ]
            authors = [
                (r["author"], r["kind"], r["changes"])
                for r in pipeline.history.changes_by_author(source).collect()
            ]
            plot_history(points, authors, plot, str(data_dir if records is None else records))
        rows = (
            _rows(lifetimes.orderBy("created_offset", "kind"))
            if json_output or not out_path
            else []
        )
        source.unpersist()
    if json_output:
        print_json({"lifetimes": rows})
    elif out_path is None:
        columns = ["kind", "acl_id", "user", "mechanism", "created_offset", "created_by"]
        _show(rows, [*columns, "rotations", "removed_offset", "removed_by"], limit, "lifetimes")
    else:
        out.print(f"wrote lifetimes to {out_path}", markup=False)
    if plot is not None and not json_output:
        out.print(f"drew {plot}", markup=False)


def _principals(path: Path) -> list[str]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as error:
        fail(f"cannot read the principals file {path}: {error.strerror}", EXIT_USAGE)
    found = []
    for number, line in enumerate(lines, start=1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        kind, sep, name = text.partition(":")
        if not (kind and sep and name):
            fail(f"{path}:{number}: expected a principal like User:alice, got {text!r}", EXIT_USAGE)
        found.append(text)
    return found


def _resources(path: Path) -> list[tuple[ResourceType, str]]:
    try:
        return read_inventory(path)
    except OptionError as error:
        fail(str(error), EXIT_USAGE)


def _operations(names: Sequence[str]) -> tuple[AclOperation, ...]:
    try:
        found = tuple(AclOperation.parse(n) for n in names)
    except ValueError as error:
        fail(str(error), EXIT_USAGE)
    bad = [op.name for op in found if op in (AclOperation.ANY, AclOperation.UNKNOWN)]
    if bad:
        fail(f"--operations {bad[0]} is not an operation a request can ask for", EXIT_USAGE)
    return found


@pipeline_app.command("access")
def access_command(
    resources: Annotated[
        Path, typer.Option("--resources", help="TYPE:name lines, e.g. TOPIC:orders.")
    ],
    principals: Annotated[Path, typer.Option("--principals", help="One User:name per line.")],
    data_dir: DataDirOption = None,
    records: RecordsOption = None,
    hosts: Annotated[
        list[str] | None, typer.Option("--hosts", help="Client addresses (repeat; default *).")
    ] = None,
    operations: Annotated[
        list[str] | None,
        typer.Option("--operations", help="Operations (repeat; default: each type's own)."),
    ] = None,
    at_offset: AtOffset = None,
    at_time: AtTime = None,
    super_users: Annotated[
        str | None, typer.Option(help="Kafka's super.users, e.g. 'User:admin;User:ops'.")
    ] = None,
    allow_everyone_if_no_acl_found: Annotated[
        bool, typer.Option("--allow-everyone-if-no-acl-found", help="Kafka's setting.")
    ] = False,
    partitions: Annotated[
        int | None, typer.Option("--partitions", min=1, help="Tasks that share the grid.")
    ] = None,
    out_path: OutOption = None,
    snapshots: SnapshotsFlag = True,
    master: MasterOption = None,
    json_output: JsonFlag = False,
    limit: LimitOption = 20,
) -> None:
    """Every principal x resource x operation decision and its deciding ACL, as 'explain'."""
    inventory = _resources(resources)
    people = _principals(principals)
    asked = _operations(operations or [])
    try:
        supers = parse_super_users(super_users)
    except ValueError as error:
        fail(str(error), EXIT_USAGE)
    at_time_ms = _time(at_time)
    _check_source(data_dir, records)
    with _spark(master) as spark:
        pipeline = _modules()

        result = _state(spark, data_dir, records, (at_offset, at_time_ms), snapshots)
        question = pipeline.AccessQuestion(
            hosts=tuple(hosts or ["*"]),
            operations=asked,
            super_users=frozenset(supers),
            allow_everyone_if_no_acl_found=allow_everyone_if_no_acl_found,
        )
        decisions = pipeline.access.access(
            result.acls,
            pipeline.access.resources_frame(spark, inventory),
            pipeline.access.principals_frame(spark, people),
            question,
            partitions=partitions,
        )
        if out_path is not None:
            decisions = _write(decisions, out_path)
        rows = _rows(decisions.orderBy(*_ACCESS_ORDER)) if json_output or not out_path else []
        result.unpersist()
    if json_output:
        print_json({"decisions": rows})
    elif out_path is None:
        columns = ["principal", "host", "resource_type", "resource_name", "operation"]
        _show(rows, [*columns, "decision", "reason", "acl_id"], limit, "decisions")
    else:
        out.print(f"wrote decisions to {out_path}", markup=False)


_ACCESS_ORDER = ("principal", "host", "resource_type", "resource_name", "operation")


@pipeline_app.command("orphans")
def orphans_command(
    data_dir: DataDirOption = None,
    records: RecordsOption = None,
    resources: Annotated[
        Path | None, typer.Option("--resources", help="TYPE:name lines (an inventory).")
    ] = None,
    at_offset: AtOffset = None,
    at_time: AtTime = None,
    out_path: OutOption = None,
    snapshots: SnapshotsFlag = True,
    master: MasterOption = None,
    json_output: JsonFlag = False,
    limit: LimitOption = 20,
) -> None:
    """ACLs naming users without credentials, credentials no ACL names, ACLs on nothing."""
    inventory = _resources(resources) if resources is not None else None
    at_time_ms = _time(at_time)
    _check_source(data_dir, records)
    with _spark(master) as spark:
        pipeline = _modules()

        result = _state(spark, data_dir, records, (at_offset, at_time_ms), snapshots)
        frame = pipeline.orphans.orphans(
            result.acls,
            result.users,
            None if inventory is None else pipeline.access.resources_frame(spark, inventory),
        )
        if out_path is not None:
            frame = _write(frame, out_path)
        rows = _rows(frame.orderBy("kind", "acl_id", "user"))
        result.unpersist()
    if json_output:
        print_json({"orphans": rows})
        return
    columns = ["kind", "acl_id", "principal", "resource_type", "resource_name", "user"]
    _show(rows, [*columns, "mechanisms"], limit, "orphans")
