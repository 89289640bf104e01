"""``aclog import --from-kraft``: turn Kafka's own KRaft metadata log into an aclog data directory,
and the adapters that let the other tools read a KRaft directory as a decoded stream.

The import reads the newest usable ``.checkpoint`` snapshot and every log batch after it (see
:mod:`aclog.kraft.replay`) and appends ONE aclog batch per KRaft batch that holds anything aclog
tracks, with the KRaft batch's epoch and timestamp, keeping record order. The snapshot's
records come first, with the snapshot's epoch and header timestamp (split into batches of at
most ``MAX_BATCH_RECORDS`` records when it is larger). KRaft batches holding only other record
types (topics, partitions, brokers, features...) write nothing, so aclog offsets are renumbered
from 0 and do not equal KRaft offsets; the JSON report gives both ends. No RequestContextRecord
is written: KRaft does not record who asked for a change.

The KRaft directory is only read (no lock, no writes); the target must be missing or empty, and
on any failure whatever was written there is removed again.
"""

from __future__ import annotations

import os
import shutil
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import typer

from aclog.kraft import (
    CheckpointInfo,
    KraftBatch,
    KraftError,
    checkpoint_batch,
    control_name,
    is_kraft_path,
    kraft_replay_batches,
    read_kraft,
    read_kraft_segment,
    record_name,
)
from aclog.kraft.checkpoint import CHECKPOINT_SUFFIX
from aclog.log import LogError, SegmentedLog
from aclog.log.appends import MAX_BATCH_RECORDS
from aclog.records import NoOpRecord, Record, encode_many
from aclog.replay.rebuild import kraft_decoded_batch
from aclog.replay.stream import DecodedBatch
from aclog.snapshot.naming import SNAPSHOT_SUFFIX
from aclog.tools.common import DATA_DIR_ENV
from aclog.tools.console import (
    EXIT_FAILURE,
    EXIT_IO,
    EXIT_USAGE,
    app,
    fail,
    fail_os,
    print_json,
    print_line,
)
from aclog.tools.progress import estimated_end_offset, offsets_bar

# -- the decoded stream of a KRaft directory, for dump / replay / explain ---------------------


def kraft_decoded_batches(
    path: Path, from_offset: int = 0, to_offset: int | None = None
) -> Iterator[DecodedBatch]:
    """The decoded batches of a KRaft directory (its log segments), of one ``.log`` segment, or
    of one ``.checkpoint`` snapshot (as one batch at its last covered offset)."""
    if path.is_file() and path.name.endswith(CHECKPOINT_SUFFIX):
        yield kraft_decoded_batch(checkpoint_batch(path))
    elif path.is_file():
        for batch in read_kraft_segment(path):
            yield kraft_decoded_batch(batch)
    else:
        for batch in read_kraft(path, from_offset, to_offset):
            yield kraft_decoded_batch(batch)


def kraft_replay_decoded(
    directory: Path,
    at_offset: int | None = None,
    at_time_ms: int | None = None,
    *,
    on_warning: Callable[[str], None] | None = None,
) -> tuple[CheckpointInfo | None, Iterator[DecodedBatch]]:
    """(the snapshot used, its records as one batch then the log batches after it), decoded;
    replay the first batch as a snapshot when the snapshot is not ``None``."""
    kwargs: dict[str, Any] = {} if on_warning is None else {"on_warning": on_warning}
    info, batches = kraft_replay_batches(directory, at_offset, at_time_ms, **kwargs)
    return info, (kraft_decoded_batch(b) for b in batches)


# -- the import ------------------------------------------------------------------------------


@dataclass
class ImportReport:
    """What an import read and wrote."""

    source: Path
    data_dir: Path
    snapshot: CheckpointInfo | None = None
    kraft_batches: int = 0
    kraft_next_offset: int = 0
    batches_written: int = 0
    records_written: int = 0
    aclog_end_offset: int = 0
    batches_without_aclog_records: int = 0
    records_by_type: Counter[str] = field(default_factory=Counter)
    skipped: Counter[str] = field(default_factory=Counter)
    skipped_control: Counter[str] = field(default_factory=Counter)
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """The ``--json`` form."""
        return {
            "source": str(self.source),
            "data_dir": str(self.data_dir),
            "snapshot": None if self.snapshot is None else self.snapshot.to_dict(),
            "kraft_batches": self.kraft_batches,
            "kraft_next_offset": self.kraft_next_offset,
            "batches_written": self.batches_written,
            "records_written": self.records_written,
            "aclog_end_offset": self.aclog_end_offset,
            "batches_without_aclog_records": self.batches_without_aclog_records,
            "records_by_type": dict(sorted(self.records_by_type.items())),
            "skipped": dict(sorted(self.skipped.items())),
            "skipped_control": dict(sorted(self.skipped_control.items())),
            "warnings": self.warnings,
        }


class ImportTargetError(ValueError):
    """The target directory cannot receive an import (not empty, or inside the source)."""


def check_target(source: Path, data_dir: Path) -> None:
    """Refuse a non-empty target and any target inside the KRaft directory."""
    src, dst = source.resolve(), data_dir.resolve()
    src_dir = src.parent if src.is_file() else src
    if dst == src_dir or src_dir in dst.parents:
        raise ImportTargetError(
            f"{data_dir} is inside the KRaft directory {src_dir}; aclog never writes there, "
            "give a data directory elsewhere"
        )
    if data_dir.exists() and not data_dir.is_dir():
        raise ImportTargetError(f"{data_dir} exists and is not a directory")
    if data_dir.is_dir() and any(data_dir.iterdir()):
        raise ImportTargetError(
            f"{data_dir} is not empty; import into a new or empty directory so no existing "
            "log is mixed with the imported one"
        )


def import_kraft(
    source: Path,
    data_dir: Path,
    *,
    skip_noop: bool = False,
    on_batch: Callable[[KraftBatch], None] | None = None,
) -> ImportReport:
    """Convert the KRaft metadata in ``source`` (a directory or one ``.checkpoint``) into a new
    aclog log in ``data_dir``; raise :class:`ImportTargetError`, :class:`KraftError` or
    :class:`LogError`, leaving ``data_dir`` as it was."""
    check_target(source, data_dir)
    report = ImportReport(source, data_dir)
    if source.is_file():
        whole = checkpoint_batch(source)
        batches: Iterator[KraftBatch] = iter([whole])
    else:
        report.snapshot, batches = kraft_replay_batches(source, on_warning=report.warnings.append)
    created = not data_dir.exists()
    try:
        with SegmentedLog(data_dir, fsync=False) as log:
            for batch in batches:
                _import_batch(log, batch, report, skip_noop=skip_noop)
                if on_batch is not None:
                    on_batch(batch)
            report.aclog_end_offset = log.end_offset
        _sync_tree(data_dir)
    except BaseException:
        _undo(data_dir, created)
        raise
    return report


def _import_batch(
    log: SegmentedLog, batch: KraftBatch, report: ImportReport, *, skip_noop: bool
) -> None:
    report.kraft_batches += 0 if batch.from_checkpoint else 1
    report.kraft_next_offset = max(report.kraft_next_offset, batch.last_offset + 1)
    for api_key, count in batch.skipped.items():
        report.skipped[record_name(api_key)] += count
    for control_type, count in batch.skipped_control.items():
        report.skipped_control[control_name(control_type)] += count
    records: list[Record] = [
        r.record for r in batch.records if not (skip_noop and isinstance(r.record, NoOpRecord))
    ]
    if not records:
        report.batches_without_aclog_records += 0 if batch.from_checkpoint else 1
        return
    for start in range(0, len(records), MAX_BATCH_RECORDS):
        chunk = records[start : start + MAX_BATCH_RECORDS]
        log.append(encode_many(chunk), batch.epoch, timestamp_ms=batch.timestamp_ms)
        report.batches_written += 1
        report.records_written += len(chunk)
        report.records_by_type.update(type(r).__name__ for r in chunk)


def _sync_tree(directory: Path) -> None:
    """Make the imported files durable (the log was written without per-batch fsyncs)."""
    for entry in os.scandir(directory):
        if entry.is_file():
            fd = os.open(entry.path, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _undo(data_dir: Path, created: bool) -> None:
    """Remove what a failed import wrote (the directory was missing or empty before)."""
    if created:
        shutil.rmtree(data_dir, ignore_errors=True)
        return
    for entry in os.scandir(data_dir):
        if entry.is_dir(follow_symlinks=False):
            shutil.rmtree(entry.path, ignore_errors=True)
        else:
            Path(entry.path).unlink(missing_ok=True)


def _check_source(source: Path) -> None:
    if not source.exists():
        fail(f"no such file or directory: {source}", EXIT_USAGE)
    if source.is_file():
        if not source.name.endswith(CHECKPOINT_SUFFIX):
            fail(
                f"{source} is not a KRaft snapshot; give the metadata log directory "
                "(__cluster_metadata-0) or one of its .checkpoint files",
                EXIT_USAGE,
            )
        return
    names = [entry.name for entry in os.scandir(source)]
    if any(name.endswith(SNAPSHOT_SUFFIX) for name in names):
        fail(f"{source} looks like an aclog data directory, not a KRaft one", EXIT_USAGE)
    if not is_kraft_path(source) and not any(name.endswith(".log") for name in names):
        fail(
            f"no KRaft segments (.log) or snapshots (.checkpoint) in {source}; give the "
            "metadata log directory, usually <metadata.log.dir>/__cluster_metadata-0",
            EXIT_USAGE,
        )


@app.command("import")
def import_command(
    from_kraft: Annotated[
        Path,
        typer.Option(
            "--from-kraft",
            help="Kafka's metadata log directory (__cluster_metadata-0) or one .checkpoint.",
        ),
    ],
    data_dir: Annotated[
        Path,
        typer.Option(
            "--data-dir",
            help="The new aclog data directory (missing or empty).",
            envvar=DATA_DIR_ENV,
        ),
    ],
    skip_noop: Annotated[
        bool,
        typer.Option("--skip-noop", help="Leave out KRaft's periodic NoOpRecords."),
    ] = False,
    json_output: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Import the ACLs and SCRAM credentials of a KRaft metadata log into a new aclog log,
    keeping record order, epochs and timestamps (read-only on the KRaft side)."""
    _check_source(from_kraft)
    try:
        end = None if from_kraft.is_file() else estimated_end_offset(from_kraft)
        with offsets_bar("importing: KRaft", end) as on_offset:
            on_batch = None if on_offset is None else lambda b: on_offset(b.last_offset)
            report = import_kraft(from_kraft, data_dir, skip_noop=skip_noop, on_batch=on_batch)
    except ImportTargetError as error:
        fail(str(error), EXIT_USAGE)
    except KraftError as error:
        fail(f"cannot import {from_kraft}: {error}", EXIT_FAILURE)
    except LogError as error:
        fail(f"cannot write {data_dir}: {error}", EXIT_IO)
    except OSError as error:  # the source or the target: the error names the path
        fail_os("import through", error)
    for warning in report.warnings:
        print_line(f"aclog: warning: {warning}", stderr=True)
    if json_output:
        print_json(report.to_dict())
        return
    _print_report(report)


def _print_report(report: ImportReport) -> None:
    snapshot = report.snapshot
    if snapshot is not None:
        print_line(
            f"snapshot {snapshot.path.name}: {snapshot.record_count} records "
            f"(state before KRaft offset {snapshot.end_offset}, epoch {snapshot.epoch})"
        )
    print_line(
        f"read {report.kraft_batches} KRaft batches up to offset {report.kraft_next_offset}; "
        f"wrote {report.records_written} records in {report.batches_written} batches to "
        f"{report.data_dir} (offsets 0..{report.aclog_end_offset - 1})"
    )
    for name, count in sorted(report.records_by_type.items()):
        print_line(f"  {count:>8}  {name}")
    skipped = sum(report.skipped.values())
    if skipped:
        kinds = ", ".join(f"{name} {n}" for name, n in report.skipped.most_common())
        print_line(f"skipped {skipped} other KRaft records: {kinds}")
