"""Reads a snapshot back: verify the whole file first, then decode its records on demand.

:func:`read_snapshot` checks, before any record is decoded, that the header parses and names
a known format, that the file has exactly the size the header states (so truncation anywhere
is caught), and that the CRC-32C over the file matches (so damage anywhere is caught; see
:mod:`aclog.snapshot.header`). :meth:`SnapshotReader.records` then decodes the verified file
(:meth:`SnapshotReader.read_columns` too, leaving format 2's ACL chunks as columns: see
:mod:`aclog.snapshot.contents`) and checks the number of records of each type against the
header once it is exhausted; both run through the same checks (``_decoded``). Every
problem raises :class:`SnapshotCorruptError` naming the file and what is wrong; a caller that
builds state from the records discards it on that error, so no partial state is ever used.

Thread-safe: a reader holds no open file, and each :meth:`SnapshotReader.records` call opens
its own. Cost: verification reads the file once at CRC-32C speed (GB/s); decoding is one
fastavro call per container block (:mod:`aclog.snapshot.blocks`) plus the records' objects.
"""

from __future__ import annotations

import errno
import io
import os
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Protocol, TypeVar

import crc32c
import fastavro
from fastavro.read import SchemaResolutionError

from aclog.log import files
from aclog.records.types import Record
from aclog.snapshot.blocks import decode_blocks
from aclog.snapshot.contents import SnapshotContents, decode_contents
from aclog.snapshot.errors import SnapshotCorruptError
from aclog.snapshot.header import (
    SnapshotInfo,
    check_format,
    file_checksum,
    parse_info,
    stored_integrity,
)
from aclog.snapshot.naming import parse_snapshot_name
from aclog.snapshot.schema import current_schema_versions

MAX_HEADER_BYTES = 1 << 20
_CHUNK_BYTES = 1 << 20
T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)
# What fastavro raises on bytes it cannot decode; after the checksum passed, only a writer bug.
_DECODE_ERRORS = (
    EOFError,
    ValueError,
    TypeError,
    KeyError,
    IndexError,
    OverflowError,
    SchemaResolutionError,
)


class SnapshotReader:
    """A verified snapshot: what its header says, and its records on demand."""

    def __init__(self, info: SnapshotInfo, identity: tuple[int, ...], format_version: str) -> None:
        self.info = info
        self.format_version = format_version
        """The header's ``aclog.format``: ``"2"`` ACLs in column chunks, ``"1"`` rows."""
        self._identity = identity

    def records(self) -> Iterator[Record]:
        """The snapshot's records in file order, each as its dataclass.

        Raises :class:`SnapshotCorruptError` if the file changed since it was verified, if a
        record cannot be decoded, or, once exhausted, if the counts differ from the header's.
        """
        for block in self._decoded(decode_blocks):
            yield from block

    def read_all(self) -> list[Record]:
        """All of :meth:`records` as one list, with the same checks; built a block at a time,
        without a generator step per record (a tenth of a format-2 load)."""
        records: list[Record] = []
        for block in self._decoded(decode_blocks):
            records += block
        return records

    def read_columns(self) -> SnapshotContents:
        """The snapshot's records with its ACL column chunks left as columns (see
        :mod:`aclog.snapshot.contents`), for ``AclTable.from_chunks``; exactly the checks and
        errors of :meth:`read_all`. Cost: a few C-level calls per chunk (no object per ACL of
        a chunk), one record per row."""
        (contents,) = self._decoded(decode_contents)  # exhausts it: the count check runs
        return contents

    def _decoded(self, decode: _Decoder[T]) -> Iterator[T]:
        """What ``decode`` yields from the file, under every check a read makes: the file is
        the one verified, decode errors name the file, the counts are the header's."""
        path = self.info.path
        with files.open_reader(path) as file:
            if _identity(os.fstat(file.fileno())) != self._identity:
                raise SnapshotCorruptError(path, "the file changed after it was verified")
            counts = dict.fromkeys(self.info.record_counts, 0)
            # Older schema versions are resolved to the current ones (Avro schema resolution).
            current = dict(self.info.schema_versions) == current_schema_versions()
            try:
                yield from decode(
                    path, file, counts, current=current, format_version=self.format_version
                )
            except _DECODE_ERRORS as err:
                raise SnapshotCorruptError(path, f"a record cannot be decoded: {err!r}") from None
        for name, expected in self.info.record_counts.items():
            if counts[name] != expected:
                raise SnapshotCorruptError(
                    path, f"it holds {counts[name]} {name} records, its header says {expected}"
                )


class _Decoder(Protocol[T_co]):
    """A decoder of a verified container file (:func:`~aclog.snapshot.blocks.decode_blocks`,
    :func:`~aclog.snapshot.contents.decode_contents`)."""

    def __call__(
        self,
        path: Path,
        file: IO[bytes],
        counts: dict[str, int],
        *,
        current: bool,
        format_version: str,
    ) -> Iterator[T_co]: ...


def _open_unlinked(path: Path) -> io.BufferedReader:
    """``path`` opened for reading; a symbolic link there makes the snapshot unusable (readers
    then take an older one or the log), never followed."""
    try:
        return files.open_reader(path)
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise SnapshotCorruptError(path, str(error.strerror)) from None
        raise


def read_snapshot(path: Path | str) -> SnapshotReader:
    """Open and verify the snapshot at ``path`` (size and checksum); decode nothing yet."""
    path = Path(path)
    with _open_unlinked(path) as file:
        stat = os.fstat(file.fileno())
        header, metadata = _read_header(path, file, stat.st_size)
        format_version = check_format(path, metadata)
        data_bytes, checksum = stored_integrity(path, metadata)
        _check_size(path, len(header), data_bytes, stat.st_size)
        _check_checksum(path, file, header, data_bytes, checksum)
        info = parse_info(path, metadata, stat.st_size)
    named = parse_snapshot_name(path.name)
    if named is not None and named != (info.last_offset, info.epoch):
        raise SnapshotCorruptError(
            path,
            f"its name says offset {named[0]} epoch {named[1]}, its header says offset "
            f"{info.last_offset} epoch {info.epoch}",
        )
    return SnapshotReader(info, _identity(stat), format_version)


def verify_snapshot(path: Path | str) -> SnapshotInfo:
    """Verify the snapshot at ``path`` completely, decoding every record; return its info."""
    reader = read_snapshot(path)
    for _ in reader.records():
        pass
    return reader.info


def _read_header(path: Path, file: IO[bytes], size: int) -> tuple[bytes, dict[str, str]]:
    if size == 0:
        raise SnapshotCorruptError(path, "the file is empty")
    # Parse from memory: a damaged length field then cannot make a read allocate gigabytes.
    head = io.BytesIO(file.read(min(size, MAX_HEADER_BYTES)))
    try:
        metadata = fastavro.reader(head).metadata
    except Exception as err:  # any failure to parse untrusted bytes means a damaged file
        raise SnapshotCorruptError(
            path, f"its Avro header cannot be read ({type(err).__name__}: {err})"
        ) from None
    return head.getvalue()[: head.tell()], dict(metadata)


def _check_size(path: Path, header_bytes: int, data_bytes: int, size: int) -> None:
    expected = header_bytes + data_bytes
    if size < expected:
        raise SnapshotCorruptError(
            path, f"it is truncated: {size} bytes, its header says {expected}"
        )
    if size > expected:
        raise SnapshotCorruptError(
            path, f"{size - expected} unexpected bytes follow its last record"
        )


def _check_checksum(
    path: Path, file: io.BufferedReader, header: bytes, data_bytes: int, expected: int
) -> None:
    file.seek(len(header))
    buffer = bytearray(_CHUNK_BYTES)
    view = memoryview(buffer)
    crc, remaining = 0, data_bytes
    while remaining:
        read = file.readinto(view[: min(remaining, _CHUNK_BYTES)])
        if not read:
            raise SnapshotCorruptError(path, "it shrank while being read")
        crc = crc32c.crc32c(view[:read], crc)
        remaining -= read
    try:
        actual = file_checksum(header, crc)
    except ValueError as err:
        raise SnapshotCorruptError(path, str(err)) from None
    if actual != expected:
        raise SnapshotCorruptError(
            path, f"checksum mismatch: CRC-32C {actual:08x}, its header says {expected:08x}"
        )


def _identity(stat: os.stat_result) -> tuple[int, ...]:
    return (stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns)
