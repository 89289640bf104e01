"""Writes an image's records as a snapshot: an Avro object container file, atomically.

The file is written under a temporary name, its header slots (counts, size, checksum) are
patched once the records are written, then it is flushed, fsynced and renamed to its final
name, and the directory is fsynced. A crash at any point leaves either no snapshot or the whole
one; a leftover ``.tmp`` file is ignored by readers (see :mod:`aclog.snapshot.naming`).

Records stream through: nothing but the current chunk of ACLs (4096, see
:mod:`aclog.snapshot.acl_columns`) or Avro block is held in memory, so an iterator of a million
ACLs is fine. The records are not copied or sorted.

Not thread-safe per target: one writer per (directory, offset, epoch), which the single writer
of a data directory guarantees. Cost: O(records) Avro encoding, a CRC-32C at memory speed,
and two fsyncs.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import IO, Any, BinaryIO, cast

import crc32c
from fastavro.write import Writer

from aclog.log import files
from aclog.log.durable import fsync_directory
from aclog.log.modes import open_private
from aclog.records.codec import record_to_fields
from aclog.records.types import AccessControlEntryRecord, Record
from aclog.snapshot.acl_columns import CHUNK_ACLS, encode_chunk
from aclog.snapshot.acl_columns import FULL_NAME as COLUMNS_NAME
from aclog.snapshot.header import SnapshotInfo, finish_header, initial_metadata
from aclog.snapshot.naming import snapshot_file_name, temp_file_name
from aclog.snapshot.schema import (
    BY_CLASS,
    BY_NAME,
    COLUMN_SCHEMA,
    SNAPSHOT_SCHEMA,
    current_schema_versions,
)

_ACL_NAME = AccessControlEntryRecord.__name__


class _DataSink:
    """The file object fastavro writes to: it keeps the header, and checksums what follows.

    Not seekable, so fastavro never tries to append to an existing container.
    """

    def __init__(self, file: BinaryIO) -> None:
        self._file = file
        self.header = bytearray()
        self._in_header = True
        self.data_bytes = 0
        self.data_crc = 0

    def end_header(self) -> None:
        """Everything written from now on is data (blocks of records)."""
        self._in_header = False

    def write(self, data: bytes) -> int:
        if self._in_header:
            self.header += data
        else:
            self.data_crc = crc32c.crc32c(data, self.data_crc)
            self.data_bytes += len(data)
        return self._file.write(data)

    def flush(self) -> None:
        self._file.flush()

    def seekable(self) -> bool:
        return False

    def tell(self) -> int:
        return len(self.header) + self.data_bytes


def write_snapshot(
    directory: Path | str,
    records: Iterable[Record],
    *,
    last_offset: int,
    epoch: int,
    timestamp_ms: int,
    fsync: bool = True,
    rows: bool = False,
) -> SnapshotInfo:
    """Write ``records`` as the snapshot of the log up to ``last_offset`` (inclusive).

    ``epoch`` and ``timestamp_ms`` are the epoch and append time of the batch holding
    ``last_offset``. ``records`` may be any iterable, consumed once; only the types in
    :data:`~aclog.snapshot.schema.SNAPSHOT_RECORD_TYPES` are allowed (``ValueError``
    otherwise, and nothing is left behind). An existing snapshot of the same name is replaced.
    ``fsync=False`` skips the fsyncs (tests and benchmarks only: a crash may then lose it).
    The ACLs are stored in column chunks (format 2, fast to load); ``rows=True`` writes format 1
    instead, one Avro row of named fields per record, for tools that read the file with a
    plain Avro reader. This build reads both.
    """
    if timestamp_ms < 0:
        raise ValueError(f"timestamp_ms must be >= 0, not {timestamp_ms}")
    directory = Path(directory)
    versions = current_schema_versions()
    final = directory / snapshot_file_name(last_offset, epoch)
    temp = directory / temp_file_name(last_offset, epoch)
    try:
        with files.open_writer(temp, open_private(temp, os.O_WRONLY | os.O_TRUNC)) as file:
            metadata = initial_metadata(last_offset, epoch, timestamp_ms, versions, rows)
            counts, sink = _write_container(file, records, metadata, rows)
            header, checksum = finish_header(sink.header, counts, sink.data_bytes, sink.data_crc)
            file.seek(0)
            file.write(header)
            file.flush()
            if fsync:
                files.fsync(file.fileno(), temp)
        files.replace(temp, final)
    except BaseException:
        _remove_quietly(temp)
        raise
    if fsync:
        fsync_directory(directory)
    return SnapshotInfo(
        final,
        last_offset,
        epoch,
        timestamp_ms,
        counts,
        versions,
        len(header) + sink.data_bytes,
        checksum,
    )


def _remove_quietly(temp: Path) -> None:
    """Remove what a failed write left; a failure here must not hide the one that matters."""
    with contextlib.suppress(OSError):
        files.unlink(temp, missing_ok=True)


def _write_container(
    file: BinaryIO, records: Iterable[Record], metadata: dict[str, str], rows: bool
) -> tuple[dict[str, int], _DataSink]:
    sink = _DataSink(file)
    # Creating the Writer writes the header, and nothing else.
    schema = SNAPSHOT_SCHEMA if rows else COLUMN_SCHEMA
    writer = Writer(cast(IO[bytes], sink), schema, codec="null", metadata=metadata)
    sink.end_header()
    counts = dict.fromkeys(BY_NAME, 0)
    if rows:
        for record in records:
            _write_row(writer.write, record, counts)
    else:
        _write_columns(writer.write, records, counts)
    writer.flush()
    return counts, sink


def _write_row(write: Callable[[Any], None], record: Record, counts: dict[str, int]) -> None:
    member = BY_CLASS.get(type(record))
    if member is None:
        raise ValueError(f"a snapshot holds only {', '.join(BY_NAME)}, not {type(record).__name__}")
    counts[member.name] += 1
    # The tuple names the union branch, so fastavro need not guess it from the fields.
    write((member.full_name, record_to_fields(record)))


def _write_columns(
    write: Callable[[Any], None], records: Iterable[Record], counts: dict[str, int]
) -> None:
    """ACLs in chunks of columns; any other record as a row, after the ACLs before it, so the
    file keeps the records' order."""
    chunk: list[AccessControlEntryRecord] = []
    for record in records:
        if type(record) is AccessControlEntryRecord:
            chunk.append(record)
            if len(chunk) < CHUNK_ACLS:
                continue
        if chunk:
            write((COLUMNS_NAME, encode_chunk(chunk)))
            counts[_ACL_NAME] += len(chunk)
            chunk = []
        if type(record) is not AccessControlEntryRecord:
            _write_row(write, record, counts)
    if chunk:
        write((COLUMNS_NAME, encode_chunk(chunk)))
        counts[_ACL_NAME] += len(chunk)
