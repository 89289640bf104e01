"""``aclog dump``: print the records of logs, snapshots or KRaft metadata, read by
:func:`aclog.replay.dump_entries` and worded by :func:`~aclog.replay.batch_line` and
:func:`~aclog.replay.record_line`; imported when the command runs, not for its ``--help``."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from aclog.tools.console import (
    EXIT_FAILURE,
    EXIT_USAGE,
    app,
    counted,
    fail,
    print_json_line,
    print_line,
    print_warning,
)
from aclog.tools.params import SourceFormat

if TYPE_CHECKING:
    from aclog.log import TornTailError
    from aclog.replay import Entry, Removal
    from aclog.tools.progress import OnOffset


@app.command()
def dump(
    paths: Annotated[
        list[Path],
        typer.Argument(
            help="Data directories, segment (.log) files, snapshots, or KRaft metadata "
            "directories (__cluster_metadata-0) and .checkpoint files.",
            readable=False,
        ),
    ],
    from_offset: Annotated[int, typer.Option(help="First offset to print.", min=0)] = 0,
    to_offset: Annotated[int | None, typer.Option(help="Stop before this offset.", min=0)] = None,
    record_type: Annotated[
        list[str] | None,
        typer.Option("--type", help="Only records of this type, e.g. AccessControlEntryRecord."),
    ] = None,
    json_output: Annotated[
        bool, typer.Option("--json", help="One JSON object per record per line.")
    ] = False,
    no_redact: Annotated[
        bool, typer.Option("--no-redact", help="Show SCRAM salts and keys.")
    ] = False,
    source_format: SourceFormat = "auto",
) -> None:
    """Print every record with its offset, epoch, time, type and author."""
    from aclog.kraft import KraftError  # noqa: PLC0415 - on a run, not --help (issue 37)
    from aclog.log import CorruptLogError, TornTailError  # noqa: PLC0415
    from aclog.records import RecordDecodeError, record_class_named  # noqa: PLC0415
    from aclog.replay import dump_entries, reporting_batches, with_removed  # noqa: PLC0415
    from aclog.snapshot import SnapshotError  # noqa: PLC0415
    from aclog.tools.common import is_kraft  # noqa: PLC0415
    from aclog.tools.exit_codes import fail_for  # noqa: PLC0415

    try:
        types = {record_class_named(name) for name in record_type or []} or None
    except ValueError as error:  # an unknown type: the error lists the names
        fail(str(error), EXIT_USAGE)
    if to_offset is not None and to_offset < from_offset:
        fail(
            "--to-offset comes before --from-offset; give the earlier one as --from-offset",
            EXIT_USAGE,
        )
    for path in paths:
        if not path.exists():
            fail(
                f"no such file or directory: {path} (give a data directory or a .log segment)",
                EXIT_USAGE,
            )
    kraft = [is_kraft(path, source_format) for path in paths]
    try:
        for path, is_kraft_path in zip(paths, kraft, strict=True):
            if not is_kraft_path:
                _check_readable_as_log(path)
        with _progress(paths) as on_offset:
            entries = dump_entries(paths, kraft, from_offset, to_offset, print_warning)
            if on_offset is not None:
                entries = reporting_batches(entries, on_offset)
            _print(with_removed(entries, types), json_output, not no_redact)
    except TornTailError as error:
        fail(_torn_message(error), EXIT_FAILURE)
    except BrokenPipeError:
        raise  # the reader went away: handled once, around every command
    except (CorruptLogError, RecordDecodeError, SnapshotError, KraftError, OSError) as error:
        fail_for(error, "dump")


def _print(entries: Iterator[tuple[Entry, Removal]], json_output: bool, redact: bool) -> None:
    from aclog.replay import batch_line, dump_row, record_line  # noqa: PLC0415 - see dump

    if json_output:
        for entry, removed in entries:
            print_json_line(dump_row(entry, removed, redact=redact))
        return
    count, batch = 0, -1
    for entry, removed in entries:  # a line per batch (epoch, time, author), then its records
        if entry.batch_base_offset != batch:
            batch = entry.batch_base_offset
            print_line(batch_line(entry))
        count += 1
        print_line(record_line(entry, removed, redact=redact))
    print_line(counted(count, "record"))


def _progress(paths: list[Path]) -> AbstractContextManager[OnOffset | None]:
    """A bar while records go to a file or a pipe (on the terminal the listing shows its own
    progress), up to the end of the log when one directory is dumped."""
    from aclog.log import estimated_end_offset  # noqa: PLC0415 - see dump
    from aclog.tools.progress import offsets_bar, stdout_is_free  # noqa: PLC0415

    if not stdout_is_free():
        return nullcontext(None)
    end = estimated_end_offset(paths[0]) if len(paths) == 1 and paths[0].is_dir() else None
    return offsets_bar("dumping", end)


def _check_readable_as_log(path: Path) -> None:
    """Refuse what cannot hold records before printing anything: an empty file not named as a
    segment, a directory without segments (an empty segment is a real empty log)."""
    from aclog.log import list_segments, segment_base_offset  # noqa: PLC0415 - see dump
    from aclog.tools.data_dirs import not_a_log  # noqa: PLC0415

    if path.is_dir() and not list_segments(path):
        fail(not_a_log(path), EXIT_USAGE)
    if path.is_file() and path.stat().st_size == 0 and segment_base_offset(path) is None:
        fail(f"{path} is empty: not a log segment, snapshot or checkpoint", EXIT_FAILURE)


def _torn_message(error: TornTailError) -> str:
    """kafka-dump-log's "found N invalid bytes", and what the next writer does about them; a
    file that is no segment from its first byte says so."""
    from aclog.log import segment_base_offset  # noqa: PLC0415 - see dump

    torn = error.torn
    if torn.position == 0 and segment_base_offset(torn.segment) is None:
        return (
            f"{torn.segment} is not a log segment: found {torn.size} invalid bytes from byte 0 "
            f"({torn.reason})"
        )
    return str(error)
