"""States of the log kept every :data:`EVERY` records: where a step to a moment no one asked
for yet starts replaying, so that it replays at most that many records (a slider step into the
middle of a 1M log would otherwise replay from the nearest state a person asked for, or from
the log's start).

Built once, after the state at the log's end (:meth:`Checkpoints.build`, on the server's warm
thread): one forward replay of the log through the one replay path
(:func:`aclog.replay.rebuild_image`, then :func:`aclog.replay.replay_tail` a stretch at a
time), each state kept as it is reached; a state derived from the one before shares its
table's older segments (:mod:`aclog.image.acl_table`), so the states together hold about one
image's columns plus each stretch's additions. A state stays valid while the log only grows
(the caller's stamp test); after a retention or a restore they are not used.

Thread-safe: one lock guards the list; the replay runs outside it. Cost: one replay of the
whole log in the background; :meth:`Checkpoints.nearest` is a scan of at most
O(records / EVERY) states.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Generic, TypeVar

from aclog.image import MetadataImage
from aclog.log import list_segments
from aclog.replay import rebuild_image, replay_tail

EVERY = 100_000
"""Records between two kept states: the most a step replays (a few hundred ms at 1M)."""

S = TypeVar("S")

Stamp = tuple[tuple[int, int, int], ...]
"""Each segment's base offset, size and mtime: changes whenever a writer appends."""


class Checkpoints(Generic[S]):
    """The kept states of one data directory, each with the stamp ``S`` of the log it was
    read from (see the module)."""

    def __init__(self, directory: Path, every: int | None = None) -> None:
        self.directory, self.every = directory, EVERY if every is None else every
        self._lock = threading.Lock()
        self._kept: list[tuple[S, MetadataImage]] = []

    def build(self, stamp: S, end: int) -> None:
        """Keeps a state every :attr:`every` records from the log's start up to offset
        ``end`` (the log as of ``stamp``). A log that cannot be read keeps what was reached:
        the request that needs a state meets the same error and reports it."""
        segments = list_segments(self.directory)
        target = (segments[0][0] if segments else 0) + self.every - 1
        image: MetadataImage | None = None
        with contextlib.suppress(Exception):
            while target <= end:
                if image is None:
                    image = rebuild_image(self.directory, at_offset=target).image
                else:
                    start = image.provenance.last_offset + 1
                    image = replay_tail(self.directory, image, start, at_offset=target)[0]
                if image.provenance.last_offset >= 0:
                    self._keep(stamp, image)
                target = max(target, image.provenance.last_offset) + self.every

    def _keep(self, stamp: S, image: MetadataImage) -> None:
        with self._lock:
            if not self._kept or self._kept[-1][1].provenance.last_offset < (
                image.provenance.last_offset
            ):
                self._kept.append((stamp, image))

    def nearest(self, at_offset: int, valid: Callable[[S], bool]) -> MetadataImage | None:
        """The kept state nearest at or below ``at_offset`` whose stamp is ``valid``."""
        with self._lock:
            kept = list(self._kept)
        found = None
        for stamp, image in kept:
            if image.provenance.last_offset > at_offset:
                break
            if valid(stamp):
                found = image
        return found


def grew(before: Stamp, now: Stamp) -> bool:
    """Whether ``now`` is ``before`` with bytes or segments appended: every segment but the
    last unchanged, the last longer or followed by new ones. A segment rewritten in place
    (same size, new mtime: a repair, a restore) is not growth: the caller rebuilds."""
    if not before or len(now) < len(before) or before[:-1] != now[: len(before) - 1]:
        return False
    last, same = before[-1], now[len(before) - 1]
    return same[1] > last[1] or (same == last and len(now) > len(before))
