"""The log's records through Spark's JVM Avro reader: the fast path of the records DataFrame.

:func:`read_log_avro` runs one Spark job whose tasks copy the log pieces into Avro container
files (:mod:`aclog.pipeline.reframe`, no decoding) in a staging folder, then returns a lazy
DataFrame that reads them with ``org.apache.spark.sql.avro.AvroFileFormat`` (bundled inside the
spark-sql jar; ``format("avro")`` needs the separate spark-avro jar, which pyspark does not
ship) and turns each container row (the records of one type in a batch) into one row per
record (``explode``) with the columns of
:data:`~aclog.pipeline.schema.RECORD_SCHEMA`, exactly as the Python data source builds them.

Each (type, version) is its own union branch, so a column is read from every branch that has its
field and takes the field's default from today's schema in a branch that lacks it: Avro's
resolution of an older version, as :mod:`aclog.records` decodes it. The class is internal to
Spark: :func:`avro_available` says whether this Spark has it, and callers fall back to the
Python source when not.

The staging folder lives until :func:`drop_staging` or the end of the process; it holds no
secrets (see :mod:`aclog.pipeline.reframe`). On a cluster it must be on storage every executor
and the driver share (``staging``, or ``$ACLOG_PIPELINE_STAGING``).

Thread-safe (no shared mutable state besides the staging list). Cost: the copy, about a
microsecond a record in Python, plus the JVM's decode.
"""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import tempfile
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import StructType

from aclog.pipeline.columns import (
    AUTHOR_FIELDS,
    FIELD_OF_COLUMN,
    WITH_COLUMNS,
    enum_name_lists,
)
from aclog.pipeline.containers import TYPE_FOLDER, PieceStats, write_containers
from aclog.pipeline.reframe import SENTINEL, branches
from aclog.pipeline.schema import COLUMN_NAMES, RECORD_SCHEMA, REMOVE_ACL_TYPE, SOURCE_LOG
from aclog.pipeline.source import LogPiece, plan_pieces
from aclog.pipeline.state import Survey
from aclog.records.schemas import CURRENT_VERSIONS, raw_schema
from aclog.records.types import RecordType

AVRO_FORMAT = "org.apache.spark.sql.avro.AvroFileFormat"
STAGING_ENV = "ACLOG_PIPELINE_STAGING"
"""Where staging folders go when the caller names none (default: the temporary folder)."""

_STAGING: list[Path] = []


@functools.cache
def _types_with(field: str) -> frozenset[RecordType]:
    """The record types a column read from ``field`` takes its values from: as in
    :mod:`aclog.pipeline.columns`, those of :data:`~aclog.pipeline.columns.WITH_COLUMNS` that
    have the field (in some version; a version without it gives today's default)."""
    return frozenset(
        record_type
        for record_type, version in branches()
        if record_type in WITH_COLUMNS
        and field in {f["name"] for f in raw_schema(record_type, version)["fields"]}
    )


def avro_available(spark: SparkSession) -> bool:
    """Whether this Spark has the internal Avro file format class."""
    jvm = spark.sparkContext._jvm  # the only way to look a class up
    try:
        jvm.java.lang.Class.forName(AVRO_FORMAT)  # type: ignore[union-attr]
    except Exception:  # py4j wraps the ClassNotFoundException
        return False
    return True


def drop_staging() -> None:
    """Delete every staging folder this process made."""
    while _STAGING:
        shutil.rmtree(_STAGING.pop(), ignore_errors=True)


atexit.register(drop_staging)


def _write(item: tuple[int, LogPiece, str]) -> PieceStats:
    index, piece, folder = item
    return write_containers(piece, Path(folder), f"part-{index:05d}.avro")


@dataclass(frozen=True)
class Staged:
    """A staging folder and what each piece's task wrote there."""

    folder: Path
    pieces: list[PieceStats]

    def survey(self) -> Survey | None:
        """The staged records' :class:`~aclog.pipeline.state.Survey`, from the tasks' counts
        and newest batches (``None`` when no record was staged)."""
        newest = [piece.last for piece in self.pieces if piece.last is not None]
        if not newest:
            return None
        removals = sum(piece.counts.get(REMOVE_ACL_TYPE, 0) for piece in self.pieces)
        return Survey(removals, *max(newest))


def stage_log(
    spark: SparkSession,
    directory: Path,
    *,
    from_offset: int = 0,
    staging: Path | None = None,
    split_bytes: int | None = None,
) -> Staged:
    """Copy the log (from ``from_offset``) into container files, one Spark task per piece."""
    parent = staging or Path(os.environ.get(STAGING_ENV) or tempfile.gettempdir())
    folder = parent / f"aclog-avro-{uuid.uuid4().hex}"
    folder.mkdir(parents=True, mode=0o700)
    _STAGING.append(folder)
    options: dict[str, Any] = {"from_offset": from_offset}
    if split_bytes is not None:
        options["split_bytes"] = split_bytes
    parallelism = spark.sparkContext.defaultParallelism
    pieces = plan_pieces(directory.resolve(), min_partitions=parallelism, **options)
    work = [(i, piece, str(folder)) for i, piece in enumerate(pieces)]
    if not work:
        return Staged(folder, [])
    return Staged(folder, spark.sparkContext.parallelize(work, len(work)).map(_write).collect())


def read_log_avro(
    spark: SparkSession,
    directory: Path,
    *,
    from_offset: int = 0,
    columns: Sequence[str] | None = None,
    staging: Path | None = None,
    split_bytes: int | None = None,
) -> tuple[DataFrame, Survey | None]:
    """The log records from ``from_offset`` with ``columns`` (default: all) of
    :data:`~aclog.pipeline.schema.RECORD_SCHEMA`, staged now and read lazily, and their survey
    as staging counted it."""
    staged = stage_log(
        spark, directory, from_offset=from_offset, staging=staging, split_bytes=split_bytes
    )
    wanted = list(columns) if columns is not None else list(COLUMN_NAMES)
    if not any(staged.folder.glob(f"{TYPE_FOLDER}=*/*.avro")):
        return spark.createDataFrame([], RECORD_SCHEMA).select(*wanted), None
    batches = spark.read.format(AVRO_FORMAT).load(str(staged.folder))  # ``type``: the folders
    # ``to`` gives the source's exact schema (every column nullable, as the Python source's).
    schema = StructType([RECORD_SCHEMA[name] for name in wanted])
    return records_of_batches(batches, wanted).to(schema), staged.survey()


def records_of_batches(batches: DataFrame, columns: Sequence[str] = COLUMN_NAMES) -> DataFrame:
    """Container rows (the records of one type of a batch, with the ``type`` of their folder)
    -> ``columns`` of the records, one row per record. (Only those columns' expressions are
    built: each is a call to the JVM per union branch, so building all of them costs the
    driver about half a second.)"""
    checked = F.when(F.col("check") == F.lit(bytearray(SENTINEL)), F.col("base_offset")).otherwise(
        F.raise_error(
            F.lit(
                "a record body does not end where its value ends; read this log with the "
                "Python source (engine=python) to find the bad offset"
            )
        )
    )
    items = batches.select(
        checked.alias("batch_base_offset"),
        F.col("last_offset").alias("batch_last_offset"),
        "epoch",
        "timestamp_ms",
        *(F.col(f"author_{name}") for name in AUTHOR_FIELDS),
        F.explode("records").alias("_item"),
        TYPE_FOLDER,
    )
    flat = items.select(
        "*", F.col("_item.position").alias("_position"), F.col("_item.record").alias("r")
    )
    return flat.select(*(_column(name).alias(name) for name in columns))


def _column(name: str) -> Column:
    position = F.col("_position")
    if name == "offset":
        return F.col("batch_base_offset") + position
    if name == "position":
        return position
    if name == "timestamp":
        return F.timestamp_millis(F.col("timestamp_ms"))
    if name == "source":
        # Written with a condition so that the column is nullable, as in the source's schema.
        return F.when(F.col("_position") >= 0, F.lit(SOURCE_LOG))
    if name.startswith("author_"):
        field = {"author_address": "author_client_address"}.get(name, name)
        return F.col(field)
    if name == "type":
        return F.col(TYPE_FOLDER)
    if name in ("type_code", "version"):
        return _kind_column(name)
    if name in FIELD_OF_COLUMN:
        return _record_column(name)
    return F.col(name).cast(RECORD_SCHEMA[name].dataType)


def _member(index: int) -> Column:
    return F.col("r").getField(f"member{index}")


def _kind_column(name: str) -> Column:
    # One CASE with a branch per member: nested CASEs made the generated code too large to
    # compile (Spark then interprets the whole projection, several times slower).
    cases = list(enumerate(branches()))
    value: Any = F
    for index, (record_type, version) in cases:
        this = F.lit(int(record_type) if name == "type_code" else version)
        value = value.when(_member(index).isNotNull(), this)
    return value.cast(RECORD_SCHEMA[name].dataType)  # type: ignore[no-any-return]


def _record_column(name: str) -> Column:
    field = FIELD_OF_COLUMN[name]
    types = _types_with(field)
    present: list[Column] = []
    missing: list[tuple[int, RecordType]] = []
    for index, (record_type, version) in enumerate(branches()):
        if record_type not in types:
            continue
        if field in {f["name"] for f in raw_schema(record_type, version)["fields"]}:
            present.append(_member(index).getField(field))
        else:
            missing.append((index, record_type))
    # At most one member of a union item is set, so the set one's field is the coalesce.
    value = present[0] if len(present) == 1 else F.coalesce(*present)
    if missing:
        chosen: Any = F
        for index, record_type in missing:
            chosen = chosen.when(_member(index).isNotNull(), _default(record_type, field))
        value = chosen.otherwise(value)
    return _presented(name, value)


def _default(record_type: RecordType, field: str) -> Column:
    """The field's default in today's schema: what Avro resolution gives an older version."""
    for spec in raw_schema(record_type, CURRENT_VERSIONS[record_type])["fields"]:
        if spec["name"] == field:
            return F.lit(spec.get("default"))
    return F.lit(None)


def _presented(name: str, value: Column) -> Column:
    """Raw Avro values as the source presents them: ids as Kafka's text, enums by name."""
    if name == "acl_id":
        # Two replaces cost half of one ``translate`` (which maps code point by code point).
        text = F.replace(F.replace(F.base64(value), F.lit("+"), F.lit("-")), F.lit("/"), F.lit("_"))
        return F.substring(text, 1, 22)  # null stays null
    names = enum_name_lists().get(name)
    if names is None:
        return value.cast(RECORD_SCHEMA[name].dataType)
    # ``get`` is null outside the array: a code this build has no name for reads names[0].
    named = F.get(F.array(*(F.lit(n) for n in names)), value)
    return F.when(value.isNotNull(), F.coalesce(named, F.lit(names[0])))
