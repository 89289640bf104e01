"""``aclog dump``: print the records of a data directory or of segment files."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Annotated

import typer

from aclog.kraft import KraftError
from aclog.log import (
    CorruptLogError,
    TornTailError,
    estimated_end_offset,
    fenced_tails,
    list_segments,
    segment_base_offset,
)
from aclog.records import RECORD_TYPES, RecordDecodeError, record_summary
from aclog.replay import (
    DecodedBatch,
    Entry,
    Removal,
    dump_row,
    entries_between,
    kraft_decoded_batches,
    read_decoded,
    read_segment_decoded,
    with_removed,
)
from aclog.replay import dump_rows as dump_rows  # noqa: PLC0414  (demo, quickstart use it here)
from aclog.snapshot import SNAPSHOT_SUFFIX, SnapshotError, read_snapshot
from aclog.tools.acl_rows import describe
from aclog.tools.common import is_kraft
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
from aclog.tools.data_dirs import not_a_log
from aclog.tools.exit_codes import fail_for
from aclog.tools.params import SourceFormat
from aclog.tools.points import format_time
from aclog.tools.progress import OnOffset, offsets_bar, stdout_is_free

_TYPE_NAMES = {cls.__name__.lower(): cls.__name__ for cls in RECORD_TYPES}


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
    types = _parse_types(record_type or [])
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
            entries = _selected(paths, from_offset, to_offset, kraft)
            if on_offset is not None:
                entries = _reporting(entries, on_offset)
            _print(with_removed(entries, types), json_output, not no_redact)
    except TornTailError as error:
        fail(_torn_message(error), EXIT_FAILURE)
    except BrokenPipeError:
        raise  # the reader went away: handled once, around every command
    except (CorruptLogError, RecordDecodeError, SnapshotError, KraftError, OSError) as error:
        fail_for(error, "dump")


def _print(entries: Iterator[tuple[Entry, Removal]], json_output: bool, redact: bool) -> None:
    if json_output:
        for entry, removed in entries:
            print_json_line(dump_row(entry, removed, redact=redact))
    else:
        _print_listing(entries, redact=redact)


def _progress(paths: list[Path]) -> AbstractContextManager[OnOffset | None]:
    """A bar while records go to a file or a pipe (on the terminal the listing shows its own
    progress), up to the end of the log when one directory is dumped."""
    if not stdout_is_free():
        return nullcontext(None)
    end = estimated_end_offset(paths[0]) if len(paths) == 1 and paths[0].is_dir() else None
    return offsets_bar("dumping", end)


def _reporting(entries: Iterator[Entry], on_offset: OnOffset) -> Iterator[Entry]:
    """``entries``, telling ``on_offset`` at each new batch (an update per record would cost
    more than the record's line)."""
    batch = -1
    for entry in entries:
        if entry.batch_base_offset != batch:
            batch = entry.batch_base_offset
            on_offset(entry.offset)
        yield entry


def _check_readable_as_log(path: Path) -> None:
    """Refuse what cannot hold records before printing anything: an empty file not named as a
    segment, a directory without segments (an empty segment is a real empty log)."""
    if path.is_dir() and not list_segments(path):
        fail(not_a_log(path), EXIT_USAGE)
    if path.is_file() and path.stat().st_size == 0 and segment_base_offset(path) is None:
        fail(f"{path} is empty: not a log segment, snapshot or checkpoint", EXIT_FAILURE)


def _torn_message(error: TornTailError) -> str:
    """kafka-dump-log's "found N invalid bytes", and what the next writer does about them; a
    file that is no segment from its first byte says so."""
    torn = error.torn
    if torn.position == 0 and segment_base_offset(torn.segment) is None:
        return (
            f"{torn.segment} is not a log segment: found {torn.size} invalid bytes from byte 0 "
            f"({torn.reason})"
        )
    return str(error)


def snapshot_batch(path: Path) -> DecodedBatch:
    """A snapshot's records as one batch at the snapshot's offset and epoch (records in a
    snapshot have no offsets of their own: they restate the state as of its last offset)."""
    reader = read_snapshot(path)
    info = reader.info
    entries = tuple(
        Entry(
            info.last_offset,
            info.epoch,
            info.timestamp_ms,
            RECORD_TYPES[type(record)],
            info.schema_versions.get(type(record).__name__, 0),
            record,
            info.last_offset,
            None,
        )
        for record in reader.records()
    )
    return DecodedBatch.of_entries(
        info.last_offset, info.last_offset, info.epoch, info.timestamp_ms, entries, None
    )


def _parse_types(names: list[str]) -> set[str] | None:
    if not names:
        return None
    chosen = set()
    for name in names:
        key = name.lower()
        full = _TYPE_NAMES.get(key) or _TYPE_NAMES.get(key + "record")
        if full is None:
            fail(
                f"unknown record type {name!r}; expected one of: "
                f"{', '.join(sorted(_TYPE_NAMES.values()))}",
                EXIT_USAGE,
            )
        chosen.add(full)
    return chosen


def _selected(
    paths: list[Path],
    from_offset: int,
    to_offset: int | None,
    kraft: list[bool],
) -> Iterator[Entry]:
    for path, is_kraft_path in zip(paths, kraft, strict=True):
        if is_kraft_path:
            batches = kraft_decoded_batches(path, from_offset, to_offset, on_warning=print_warning)
        elif path.name.endswith(SNAPSHOT_SUFFIX):
            batches = iter([snapshot_batch(path)])
        elif path.is_dir():
            batches = read_decoded(path, from_offset, to_offset, strict=True)
        else:
            batches = read_segment_decoded(path)
        yield from entries_between(batches, from_offset, to_offset)
        if path.is_dir() and not is_kraft_path:
            for fenced in fenced_tails(path):  # not records of the log, nor damage
                print_warning(str(fenced))


def _print_listing(entries: Iterator[tuple[Entry, Removal]], *, redact: bool) -> None:
    """One header line per batch (epoch, time, author), then one line per record."""
    count = 0
    batch = -1
    for entry, removed in entries:
        if entry.batch_base_offset != batch:
            batch = entry.batch_base_offset
            print_line(_batch_line(entry))
        count += 1
        summary = record_summary(entry.record, redact=redact)
        if removed is not None:
            summary += f"  (was {describe(removed)})"
        print_line(f"  {entry.offset:>8}  {entry.type_name} v{entry.version}  {summary}")
    print_line(counted(count, "record"))


def _batch_line(entry: Entry) -> str:
    line = (
        f"batch {entry.batch_base_offset}  epoch {entry.epoch}  {format_time(entry.timestamp_ms)}"
    )
    author = entry.author
    if author is not None:
        line += f"  by {author.principal} from {author.client_address} ({author.client_id}"
        line += f", {author.api})" if author.api else ")"
    return line
