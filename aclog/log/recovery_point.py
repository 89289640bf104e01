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

Several controllers sharing a directory each keep the point of the epoch they lead in a file of
their own, ``recovery-point-epoch-{E:010d}``, so no two processes ever write one file and no
interleaving of their writes can move the point back. The directory's point is the newest
epoch's file (:func:`read_recovery_point`): the leader of epoch E creates it at its takeover,
whole and fsynced, holding E's fence F (:func:`start_epoch_point`), and an older epoch's point
never passes F (its leader moves it only over batches below the fence), so the newest file
holds the highest point there is from the moment it exists; older epochs' files are removed
then. An exclusive writer folds the epochs' files back into ``recovery-point-offset-checkpoint``
as it opens (:func:`fold_epoch_points`).

Not thread-safe: the writer owns its :class:`RecoveryPointFile`; :func:`read_recovery_point`
may run anywhere. Cost: one ``pwrite`` per advance; one directory scan and one small read per
lookup.
"""

from __future__ import annotations

import logging
import os
import re
from dataclasses import dataclass
from pathlib import Path

from crc32c import crc32c as calc_crc32c  # kafka-python's own choice, without importing kafka

from aclog.log import files
from aclog.log.durable import fsync_directory, publish_file
from aclog.log.modes import open_private

FILE_NAME = "recovery-point-offset-checkpoint"
_EPOCH_FILE = re.compile(r"recovery-point-epoch-(\d{10})")
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


def decode(data: bytes, name: str = FILE_NAME) -> RecoveryPoint:
    """The point the bytes of the file ``name`` hold; offset 0 with a problem when they are
    not one."""
    body, crc = data[:_BODY], data[_BODY + 1 : _SIZE - 1]
    fields = body[len(_PREFIX) :].split(b" ")
    if len(data) != _SIZE or not body.startswith(_PREFIX) or len(fields) != 2:
        return RecoveryPoint(0, problem=f"{name} is not a recovery point ({len(data)} bytes)")
    if crc != b"%08x" % calc_crc32c(body):
        return RecoveryPoint(0, problem=f"{name} fails its checksum (torn by a power loss?)")
    try:
        return RecoveryPoint(int(fields[0]), int(fields[1]))
    except ValueError:
        return RecoveryPoint(0, problem=f"{name} holds no numbers where they belong")


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


def epoch_point_path(directory: Path, epoch: int) -> Path:
    """The file holding the recovery point of epoch ``epoch``'s leader."""
    return directory / f"recovery-point-epoch-{epoch:010d}"


def point_epochs(directory: Path) -> list[int]:
    """The epochs with a recovery point file of their own, oldest first (one directory scan)."""
    matches = (_EPOCH_FILE.fullmatch(entry.name) for entry in os.scandir(directory))
    return sorted(int(match.group(1)) for match in matches if match is not None)


def read_recovery_point(directory: Path) -> RecoveryPoint:
    """The recovery point of the log in ``directory`` (offset 0 when there is none yet): the
    newest epoch's file, or the directory's own without one. Cost: one directory scan and
    one small read."""
    for _ in range(3):
        epochs = point_epochs(directory)
        path = epoch_point_path(directory, epochs[-1]) if epochs else directory / FILE_NAME
        try:
            return decode(files.read_bytes(path), path.name)
        except FileNotFoundError:
            if epochs:
                continue  # removed by a newer epoch's leader since the scan: look again
    return RecoveryPoint(
        0, problem=f"no {FILE_NAME} yet (the first writer to open the log makes it)"
    )


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

    def __init__(self, directory: Path, *, fsync: bool, epoch: int | None = None) -> None:
        self.path = directory / FILE_NAME if epoch is None else epoch_point_path(directory, epoch)
        self._fsync = fsync
        created = not os.path.lexists(self.path)
        self._fd = open_private(self.path, os.O_RDWR)
        self._oversized = os.fstat(self._fd).st_size > _SIZE
        self._written: bytes | None = None  # what this handle last wrote: only it writes here
        if created:
            self.write(0, -1, durable=True)
            if fsync:
                fsync_directory(directory)

    def read(self) -> RecoveryPoint:
        """The point as the file holds it now; a problem reading it is logged at WARNING."""
        point = decode(files.pread(self._fd, _SIZE + 1, 0, self.path), self.path.name)
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
        writer that commits nothing leaves its mtime alone. Cost: one ``pwrite`` (and one
        ``pread`` the first time)."""
        data = encode(offset, epoch)
        held = self._written
        if held is None and not self._oversized:
            held = files.pread(self._fd, _SIZE, 0, self.path)
        if held != data:
            files.pwrite(self._fd, data, 0, self.path)
            self._written = data
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


def start_epoch_point(
    directory: Path, epoch: int, offset: int, point_epoch: int, *, fsync: bool
) -> RecoveryPointFile:
    """The recovery point file of epoch ``epoch``'s leader, created whole and fsynced at
    ``offset`` (the epoch's fence, everything below it fsynced by the takeover), where a batch
    of ``point_epoch`` ends; the older epochs' files go (their points never pass the fence).
    Cost: two fsyncs, a directory scan and an unlink per older file."""
    publish_file(epoch_point_path(directory, epoch), encode(offset, point_epoch))
    points = RecoveryPointFile(directory, fsync=fsync, epoch=epoch)
    for older in point_epochs(directory):
        if older < epoch:
            # A deposed leader writing on into its file writes into an unlinked inode.
            files.unlink(epoch_point_path(directory, older), missing_ok=True)
    return points


def fold_epoch_points(directory: Path, points: RecoveryPointFile, *, fsync: bool) -> None:
    """Make ``points`` (the directory's own file, an exclusive writer's as it opens) hold the
    directory's point, and remove the epochs' files, so that this writer's point is the one
    every reader reads. Cost without epoch files: one directory scan."""
    epochs = point_epochs(directory)
    if not epochs:
        return
    point = read_recovery_point(directory)
    if point.problem is not None:
        logger.warning(
            "%s: %s; recovery treats every batch as possibly torn", directory, point.problem
        )
    points.write(point.offset, point.epoch, durable=True)
    for epoch in epochs:
        files.unlink(epoch_point_path(directory, epoch), missing_ok=True)
    if fsync:
        fsync_directory(directory)
