"""The active segment: the newest segment of a log, open for appends, with its offset index.

:class:`ActiveSegment` holds the two open files (the segment, appended to; its sparse index,
:mod:`aclog.log.index`) and the segment's size, and does the byte-level work of an append: one
write of whole batches, their index entries, the fsync, and the undo of a failed append
(:meth:`ActiveSegment.cut_back` to a :class:`Mark`). Which segment is active, when to roll and
what an append means belong to :class:`~aclog.log.log.SegmentedLog`. Every file operation
goes through :mod:`aclog.log.files`.

Not thread-safe: the log's single writer owns it. Cost: a write is O(batch bytes) plus one
index entry every :data:`~aclog.log.index.INTERVAL_BYTES`; creating one fsyncs its directory.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from aclog.log import files
from aclog.log.batch import parse_header
from aclog.log.index import ENTRY, OffsetIndex, index_path
from aclog.log.modes import open_private
from aclog.log.segment import segment_file_name


class Mark(NamedTuple):
    """Where an active segment stood before an append: its size and its index's entry count.
    (A tuple: one is made per append.)"""

    size: int
    entries: int


class ActiveSegment:
    """The open segment at ``path`` (``size`` bytes so far) and its ``index``."""

    def __init__(
        self, path: Path, index: OffsetIndex, size: int, fds: tuple[int, int] | None = None
    ) -> None:
        self.path = path
        self.index_file = index_path(path)
        self.index = index
        if fds is None:
            self.fd = files.open_fd(path, os.O_WRONLY | os.O_APPEND)
            try:
                fds = (self.fd, open_private(self.index_file, os.O_WRONLY | os.O_APPEND))
            except BaseException:
                os.close(self.fd)
                raise
        self.fd, self.index_fd = fds
        self.size = size

    @classmethod
    def create(cls, directory: Path, base: int, *, fsync: bool) -> ActiveSegment:
        """A new, empty segment starting at offset ``base`` in ``directory``. On failure the
        files it opened are closed; removing files it created is the caller's undo."""
        path = directory / segment_file_name(base)
        fd = open_private(path, os.O_WRONLY | os.O_APPEND | os.O_EXCL)
        try:
            index_fd = open_private(index_path(path), os.O_WRONLY | os.O_APPEND | os.O_TRUNC)
        except BaseException:
            os.close(fd)
            raise
        segment = cls(path, OffsetIndex(base), 0, (fd, index_fd))
        if fsync:  # a new file survives a crash only once its directory entry does
            try:
                files.fsync_directory(directory)
            except BaseException:
                segment.close()
                raise
        return segment

    def mark(self) -> Mark:
        """Where the segment stands now, to :meth:`cut_back` to."""
        return Mark(self.size, len(self.index.offsets))

    def write(self, built: Sequence[tuple[int, bytearray]]) -> None:
        """Write (base offset, batch bytes) pairs to the segment in one write, then their index
        entries. A failure may leave part of them written: the caller cuts back."""
        start = self.size
        data = built[0][1] if len(built) == 1 else bytearray().join(b for _, b in built)
        files.write_all(self.fd, data, self.path)
        self.size += len(data)
        entries = []
        position = start
        for _, batch in built:
            if self.index.due(position):
                last = parse_header(batch).last_offset  # Kafka indexes a batch's last offset
                entries.append(self.index.add(last, position))
            position += len(batch)
        if entries:
            files.write_all(self.index_fd, b"".join(entries), self.index_file)

    def moved(self, end_offset: int) -> bool:
        """Whether the files say someone else wrote since this writer (whose log ends at
        ``end_offset``) last did: the segment is gone or not the size this writer left it, or
        a later segment starts at ``end_offset`` (another writer rolled). Cost: two ``stat``."""
        try:
            if os.stat(self.path).st_size != self.size:
                return True
        except FileNotFoundError:
            return True
        following = self.path.with_name(segment_file_name(end_offset))
        return following != self.path and following.exists()

    def sync(self) -> None:
        """fsync the segment (:class:`~aclog.log.files.FsyncError` when that fails)."""
        files.fsync(self.fd, self.path)

    def cut_back(self, mark: Mark, *, fsync: bool) -> None:
        """Undo what was appended since ``mark``: the segment and its index cut back to it, and
        the segment's cut made durable (``fsync``). Raises ``OSError`` when it cannot."""
        files.truncate(self.fd, mark.size, self.path)
        self.size = mark.size
        self.index.keep(mark.entries)
        files.truncate(self.index_fd, mark.entries * ENTRY.size, self.index_file)
        if fsync:
            # The cut is metadata: durable once fsynced, so a crash cannot bring the bytes back.
            files.fsync(self.fd, self.path)

    def close(self) -> None:
        """Close both files (idempotent)."""
        for fd in (self.fd, self.index_fd):
            if fd >= 0:
                os.close(fd)
        self.fd = self.index_fd = -1
