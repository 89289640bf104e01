"""The recovery point: the offset below which every byte of the log is known to be fsynced.

A crash mid-write can only tear bytes that were never fsynced, so never acknowledged. Recovery
therefore treats damage in a batch below the recovery point as corruption (refused, never cut)
and only damage at or above it as a torn tail. Kafka keeps ``recovery-point-offset-checkpoint``
for the same reason; aclog keeps one such file per data directory.

The writer advances the point right after each commit's fsync and before the commit is
acknowledged, with one ``pwrite`` into page cache and no fsync of its own: a process crash
cannot make it lag (the kernel keeps the written page), a power loss can (by at most the
kernel's write-back delay, ``vm.dirty_expire_centisecs``, 30 s by default), and a point that
lags only makes recovery more lenient. It is fsynced on close, when a segment rolls, and when
it moves down (a deliberate truncation).

It also holds the epoch of the batch that ends at the point, because Kafka's batch CRC does not
cover the partition leader epoch: a damaged epoch in the newest batch is found by comparing.

The file is one fixed-size line, ``aclog-recovery-point v1 <offset:020d> <epoch:+011d>
<crc32c:08x>``, so an update overwrites it whole and a torn or foreign file is recognised; an
unreadable or missing file counts as offset 0 (as lenient as recovery can be) and says why in
``problem``.

Not thread-safe: the writer owns its :class:`RecoveryPointFile`; :func:`read_recovery_point`
may run anywhere. Cost: one ``pwrite`` per advance; one small read per lookup.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path

from crc32c import crc32c as calc_crc32c  # kafka-python's own choice, without importing kafka

from aclog.log import files
from aclog.log.durable import fsync_directory
from aclog.log.modes import open_private

FILE_NAME = "recovery-point-offset-checkpoint"
logger = logging.getLogger(__name__)
_PREFIX = b"aclog-recovery-point v1 "
_BODY = len(_PREFIX) + 20 + 1 + 11
_SIZE = _BODY + 1 + 8 + 1


@dataclass(frozen=True, slots=True)
class RecoveryPoint:
    """The offset below which the log is known durable, the epoch of the batch ending there
    (-1 when none does), and why the offset is 0 when it could not be read (``problem`` is
    ``None`` for a file that read cleanly)."""

    offset: int
    epoch: int = -1
    problem: str | None = None


def encode(offset: int, epoch: int) -> bytes:
    """The file's bytes for ``offset`` and ``epoch``."""
    body = _PREFIX + b"%020d %+011d" % (offset, epoch)
    return body + b" %08x\n" % calc_crc32c(body)


def decode(data: bytes) -> RecoveryPoint:
    """The point a file's bytes hold; offset 0 with a problem when they are not one."""
    body, crc = data[:_BODY], data[_BODY + 1 : _SIZE - 1]
    fields = body[len(_PREFIX) :].split(b" ")
    if len(data) != _SIZE or not body.startswith(_PREFIX) or len(fields) != 2:
        return RecoveryPoint(0, problem=f"{FILE_NAME} is not a recovery point ({len(data)} bytes)")
    if crc != b"%08x" % calc_crc32c(body):
        return RecoveryPoint(0, problem=f"{FILE_NAME} fails its checksum (torn by a power loss?)")
    try:
        return RecoveryPoint(int(fields[0]), int(fields[1]))
    except ValueError:
        return RecoveryPoint(0, problem=f"{FILE_NAME} holds no numbers where they belong")


def holds_recovery_point(directory: Path) -> bool:
    """Whether ``directory`` holds aclog's recovery point file: every directory a writer has
    opened does, so this is what makes a directory an aclog data directory. Kafka keeps a file
    of the same name in each log directory (the parent of its partitions), so the file's
    first bytes decide. Cost: one small read."""
    try:
        with files.open_reader(directory / FILE_NAME) as file:
            return file.read(len(_PREFIX)) == _PREFIX
    except OSError:  # missing, a directory, unreadable: not one aclog can use
        return False


def read_recovery_point(directory: Path) -> RecoveryPoint:
    """The recovery point of the log in ``directory`` (offset 0 when there is none yet)."""
    try:
        data = files.read_bytes(directory / FILE_NAME)
    except FileNotFoundError:
        return RecoveryPoint(
            0, problem=f"no {FILE_NAME} yet (the first writer to open the log makes it)"
        )
    return decode(data)


def committed_end(directory: Path) -> int | None:
    """The offset below which the log in ``directory`` is committed, as its recovery point
    says: the writer moves the point only after a batch's fsync, so a follower in another
    process that reads only below it never sees a batch still being written, nor one whose
    fsync then fails and is cut. ``None`` while the point cannot be read (a write of it in
    progress, or torn): read nothing new until it can. Cost: one small read."""
    point = read_recovery_point(directory)
    return None if point.problem is not None else point.offset


class RecoveryPointFile:
    """The writer's handle on the recovery point file of one data directory."""

    def __init__(self, directory: Path, *, fsync: bool) -> None:
        self.path = directory / FILE_NAME
        self._fsync = fsync
        created = not os.path.lexists(self.path)
        self._fd = open_private(self.path, os.O_RDWR)
        self._oversized = os.fstat(self._fd).st_size > _SIZE
        if created:
            self.write(0, -1, durable=True)
            if fsync:
                fsync_directory(directory)

    def read(self) -> RecoveryPoint:
        """The point as the file holds it now (another shared writer may have moved it); a
        problem reading it is logged at WARNING."""
        point = decode(files.pread(self._fd, _SIZE + 1, 0, self.path))
        if point.problem is not None:
            logger.warning(
                "%s: %s; recovery treats every batch as possibly torn until the next commit",
                self.path,
                point.problem,
            )
        return point

    def write(self, offset: int, epoch: int, *, durable: bool = False) -> None:
        """Set the point to ``offset``, where a batch of ``epoch`` ends; ``durable`` fsyncs it
        (when the log fsyncs at all). A file that already holds them is not rewritten, so a
        writer that commits nothing leaves its mtime alone."""
        data = encode(offset, epoch)
        if self._oversized or files.pread(self._fd, _SIZE, 0, self.path) != data:
            files.pwrite(self._fd, data, 0, self.path)
        if self._oversized:  # a foreign file: keep only the line just written
            files.truncate(self._fd, _SIZE, self.path)
            self._oversized = False
        if durable and self._fsync:
            files.fsync(self._fd, self.path)

    def sync(self) -> None:
        """Make the last write durable."""
        if self._fsync:
            files.fsync(self._fd, self.path)

    def close(self) -> None:
        """Close the file (idempotent)."""
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
