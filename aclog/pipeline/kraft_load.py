"""Which rows of Kafka's own KRaft metadata log a job reads: :mod:`aclog.pipeline.load`'s
choice for a ``__cluster_metadata-0`` directory, made as ``aclog replay --format kraft`` makes
it, then read by the ``aclog-kraft`` source (:mod:`aclog.pipeline.kraft_source`).

The driver chooses the checkpoint (reading it whole, as the in-process replay does) and checks
the newest segment's tail once: a whole last batch that fails its CRC is told to
``on_warning`` in :func:`aclog.kraft.tail_note`'s words, as ``aclog replay`` tells it, since the
tasks that read the segment cannot (they end the log before it, quietly). KRaft records carry no
author: the author columns are null, so a job shows no principal, address or client id for a
change (``history``'s ``created_by``, ``diff``'s ``author``).

Thread-safe (no shared state). Cost on the driver: one checkpoint read whole, a header read
per batch of the newest segment and a CRC-32C check of its last two batches; the records are
read lazily by the tasks.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pyspark.sql import DataFrame, SparkSession

from aclog.kraft import (
    KraftError,
    check_newest_tail,
    kraft_replay_batches,
    list_checkpoints,
    read_checkpoint_info,
)
from aclog.log.segment import list_segments
from aclog.pipeline.errors import PipelineError
from aclog.pipeline.kraft_source import read_kraft_records
from aclog.records.warning import OnWarning


def kraft_records_as_of(
    spark: SparkSession,
    directory: Path,
    *,
    at_offset: int | None,
    at_time_ms: int | None,
    use_snapshots: bool,
    on_warning: OnWarning,
    columns: Sequence[str] | None = None,
) -> DataFrame:
    """The rows that rebuild the KRaft directory's state as of the point: the checkpoint
    ``aclog replay --format kraft`` starts from (:func:`aclog.kraft.kraft_replay_batches`' rule)
    and every log row after it. Raises :class:`PipelineError` when the log lacks offsets no
    usable checkpoint covers."""
    try:
        info, _ = kraft_replay_batches(
            directory, at_offset, at_time_ms, use_snapshots=use_snapshots, on_warning=on_warning
        )
    except KraftError as error:
        raise PipelineError(str(error)) from None
    check_newest_tail(directory, on_warning, at_offset=at_offset, at_time_ms=at_time_ms)
    checkpoint = None if info is None else info.path
    start = 0 if info is None else info.end_offset
    return read_kraft_records(
        spark, directory, checkpoint=checkpoint, from_offset=start, columns=columns
    )


def kraft_records_for_history(
    spark: SparkSession, directory: Path, *, on_warning: OnWarning
) -> DataFrame:
    """Every retained log row; when Kafka deleted the segments at the start of the log, the
    oldest readable checkpoint the log continues from comes first (what it holds existed at its
    last covered offset)."""
    if not directory.is_dir():
        raise PipelineError(f"no KRaft metadata directory at {directory}")
    check_newest_tail(directory, on_warning)
    segments = list_segments(directory)
    log_start = segments[0][0] if segments else 0
    if log_start == 0:
        return read_kraft_records(spark, directory)
    for candidate in list_checkpoints(directory):
        if candidate.end_offset < log_start:
            continue
        try:
            info, _ = read_checkpoint_info(candidate.path)
        except (KraftError, OSError) as error:
            on_warning(f"skipped snapshot {candidate.path}: {error}")
            continue
        return read_kraft_records(
            spark, directory, checkpoint=info.path, from_offset=info.end_offset
        )
    raise PipelineError(
        f"the KRaft log in {directory} starts at offset {log_start} and no readable .checkpoint "
        "covers the offsets before it"
    )
