"""The active segment: the newest segment of a log, open for appends, with its offset index.

:class:`ActiveSegment` holds the two open files (the segment, appended to; its sparse index,
:mod:`aclog.log.index`) and the segment's size, and does the byte-level work of an append: one
write of whole batches, their index entries, an fsync that cuts what it could not make durable.
Which segment is active, when to roll and what an append means belong to
:class:`~aclog.log.log.SegmentedLog`.

Not thread-safe: the log's single writer owns it. Cost: a write is O(batch bytes) plus one
index entry every :data:`~aclog.log.index.INTERVAL_BYTES`; creating one fsyncs its directory.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from aclog.log.batch import parse_header
from aclog.log.durable import fsync_directory
from aclog.log.errors import LogError
from aclog.log.index import OffsetIndex, index_path
from aclog.log.modes import open_private, write_private
from aclog.log.segment import segment_file_name


class ActiveSegment:
    """The open segment at ``path`` (``size`` bytes so far) and its ``index``."""

    def __init__(self, path: Path, index: OffsetIndex, size: int) -> None:
        self.path = path
        self.index = index
        self.fd = os.open(path, os.O_WRONLY | os.O_APPEND)
        self.index_fd = open_private(index_path(path), os.O_WRONLY | os.O_APPEND)
        self.size = size

    @classmethod
    def create(cls, directory: Path, base: int, *, fsync: bool) -> ActiveSegment:
        """A new, empty segment starting at offset ``base`` in ``directory``."""
        path = directory / segment_file_name(base)
        os.close(open_private(path, os.O_WRONLY | os.O_EXCL))
        write_private(index_path(path), b"")
        if fsync:  # a new file survives a crash only once its directory entry does
            fsync_directory(directory)
        return cls(path, OffsetIndex(base), 0)

    def write(self, built: Sequence[tuple[int, bytearray]]) -> None:
        """Write (base offset, batch bytes) pairs to the segment in one write."""
        start = self.size
        data = built[0][1] if len(built) == 1 else bytearray().join(b for _, b in built)
        written = os.write(self.fd, data)
        if written != len(data):
            # A short write leaves torn batches; cut them now rather than at the next open.
            os.ftruncate(self.fd, start)
            raise LogError(f"short write to {self.path} ({written} of {len(data)})")
        self.size += written
        position = start
        for _, batch in built:
            if self.index.due(position):
                last = parse_header(batch).last_offset  # Kafka indexes a batch's last offset
                os.write(self.index_fd, self.index.add(last, position))
            position += len(batch)

    def sync_or_cut(self, start: int) -> None:
        """fsync the segment; if that fails, cut what was written from byte ``start`` before
        raising. Its writer is told it failed, so it must never reappear: left in place, it
        would be replayed after a restart, and the next append would follow it with a batch of
        the same offsets (a corrupt log)."""
        try:
            os.fsync(self.fd)
        except OSError:
            os.ftruncate(self.fd, start)
            self.size = start
            raise

    def close(self) -> None:
        """Close both files (idempotent)."""
        for fd in (self.fd, self.index_fd):
            if fd >= 0:
                os.close(fd)
        self.fd = self.index_fd = -1
