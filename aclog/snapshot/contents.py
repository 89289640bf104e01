"""A snapshot's records as the ACL table loads them: the ACLs of format 2 left in their column
chunks, every other record as its record object.

:meth:`aclog.snapshot.reader.SnapshotReader.read_columns` gives a :class:`SnapshotContents`,
with exactly the checks :meth:`~aclog.snapshot.reader.SnapshotReader.read_all` makes (the
reader runs both through one set of checks; this module only sorts the decoded items): each
chunk's columns fit together (:func:`~aclog.snapshot.acl_columns.chunk_arrays`), its strings
are UTF-8 and as many as it says (:func:`~aclog.snapshot.acl_columns.chunk_strings`, once for
all chunks), and the counts match the header's (a chunk counts the ACLs it holds).

Why: ``AclTable.from_chunks`` builds an image's ACLs from the chunks with no Python step per
ACL, where the records cost a record object and a UUID each.

Immutable values; thread-safe. Cost: a few C-level calls per chunk, one builder call per row.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from aclog.records.types import AccessControlEntryRecord, Record
from aclog.snapshot.acl_columns import (
    CHUNK_ACLS,
    ChunkArrays,
    chunk_arrays,
    chunk_strings,
    encode_chunk,
)
from aclog.snapshot.blocks import ACL_NAME, build_row, decode_items, is_chunk


@dataclass(frozen=True, slots=True)
class SnapshotContents:
    """A verified snapshot's records by kind, each kind in file order.

    ``chunks`` are the ACLs held in column chunks (format 2), checked, their strings still
    joined (``chunk_arrays(fields, split=False)``, what ``AclTable.from_chunks`` takes);
    ``acl_rows`` the ACLs held one record per row (format 1); ``others`` every other record
    (SCRAM credentials). At most one of ``chunks`` and ``acl_rows`` holds ACLs: in a file that
    has chunks, ACL rows (which aclog's writer never puts there) are made chunks in their
    place, so the snapshot's ACLs in file order are always the chunks' followed by the rows.

    Immutable (the chunks' arrays are views of the bytes read); thread-safe. Cost: the chunks'
    bytes as read (about 50 bytes per ACL), a record object per row.
    """

    chunks: tuple[ChunkArrays, ...]
    acl_rows: tuple[AccessControlEntryRecord, ...]
    others: tuple[Record, ...]

    @property
    def acl_count(self) -> int:
        """How many ACLs the snapshot holds, in chunks and rows together."""
        return sum(chunk.count for chunk in self.chunks) + len(self.acl_rows)


def decode_contents(
    path: Path, file: IO[bytes], counts: dict[str, int], *, current: bool, format_version: str
) -> Iterator[SnapshotContents]:
    """The container ``file``'s records as ONE :class:`SnapshotContents`, yielded once every
    block is decoded and every chunk checked; arguments, counting and errors as
    :func:`~aclog.snapshot.blocks.decode_blocks` (the column checks' ``ValueError`` too).
    A generator so that the reader wraps it exactly as it wraps the records' decoder."""
    chunks: list[ChunkArrays] = []
    rows_before: list[int] = []  # per chunk: how many ACL rows the file holds before it
    rows: list[AccessControlEntryRecord] = []
    others: list[Record] = []
    for items in decode_items(path, file, counts, current=current, format_version=format_version):
        for full_name, fields in items:
            if is_chunk(full_name):
                chunk = chunk_arrays(fields, split=False)
                counts[ACL_NAME] += chunk.count
                chunks.append(chunk)
                rows_before.append(len(rows))
                continue
            record = build_row(full_name, fields)
            if type(record) is AccessControlEntryRecord:
                rows.append(record)
            else:
                others.append(record)
    if chunks and rows:
        chunks, rows = _merged(chunks, rows_before, rows), []
    chunk_strings(chunks)  # the strings' checks, which split=False leaves to one pass here
    yield SnapshotContents(tuple(chunks), tuple(rows), tuple(others))


def _merged(
    chunks: list[ChunkArrays], rows_before: list[int], rows: list[AccessControlEntryRecord]
) -> list[ChunkArrays]:
    """``chunks`` with the ACL ``rows`` made chunks where the file holds them (each run cut
    and encoded as the writer cuts and encodes ACLs), so that file order is kept."""
    merged: list[ChunkArrays] = []
    taken = 0
    for chunk, before in zip(chunks, rows_before, strict=True):
        merged += _encoded(rows[taken:before])
        merged.append(chunk)
        taken = before
    return merged + _encoded(rows[taken:])


def _encoded(rows: list[AccessControlEntryRecord]) -> list[ChunkArrays]:
    return [
        chunk_arrays(encode_chunk(rows[start : start + CHUNK_ACLS]), split=False)
        for start in range(0, len(rows), CHUNK_ACLS)
    ]
