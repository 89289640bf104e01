"""Epoch claims and fences: who leads each epoch of a shared log, and where each epoch's log
begins, decided by files that no held lock can block (the protocol: README, "Failover and its
guarantees", "Epoch fencing").

A node that would lead epoch E creates ``leader-epoch-{E:010d}.claim``; the first to create it
wins. Creation is a hard link of a whole, fsynced temporary file (exclusive as ``O_EXCL`` is,
and never seen half-written), then an fsync of the directory. A node claims only the epoch
after the newest claim it has seen, so every epoch below the newest has its claim and
:func:`claimed_after` is one ``stat``.

Once claim E exists, the log of the epochs before it ends where E's fence says:
``leader-epoch-{E:010d}.fence`` holds the offset F at which epoch E's log begins. Every batch of
an older epoch at F or above is *fenced*: it is not part of the log, was never acknowledged,
and is never replayed. The fence is published the same exclusive way by whoever first reads the
older epochs' tail after the claim exists (the claimer; or the deposed leader, finding the claim
without a fence), after that tail is fsynced; a later publisher gets the first one's fence.

Why no acknowledged write is lost (:func:`settle`): a leader of epoch E acknowledges a write only
after its fsync and after looking for claim E+1. None: the write's bytes were whole before the
look, the claim comes after it, and the fence is read from the log after the claim, so the fence
lies above the write. A claim with a fence: the write is committed if it ends below the fence,
and fenced (never part of the log) otherwise. A claim without one: the leader publishes the
fence itself from its own end (which holds the write) and settles again, so the outcome never
waits for a claimer that froze between its claim and its fence.

The writer settles against them (:mod:`aclog.log.commit`), a takeover makes them
(:mod:`aclog.log.takeover`), readers end segments by them (:mod:`aclog.log.fenced`). Safe from
any number of threads and processes: every decision is one exclusive link. Cost: a claim or a
fence is two fsyncs and a link; :func:`claimed_after` one ``stat``; :func:`load_fences` one
directory scan and a small read per fence.
"""

from __future__ import annotations

import enum
import functools
import os
import re
from dataclasses import dataclass
from pathlib import Path

from crc32c import crc32c as calc_crc32c

from aclog.log import files
from aclog.log.durable import publish_file
from aclog.log.errors import CorruptLogError, LogError

_NAME = re.compile(r"leader-epoch-(\d{10})\.(claim|fence)")


@dataclass(frozen=True, slots=True)
class Claim:
    """Node ``node_id`` leads epoch ``epoch``."""

    epoch: int
    node_id: int


@dataclass(frozen=True, slots=True)
class Fence:
    """Epoch ``epoch``'s log begins at ``offset``: an older epoch's batch there or above is
    fenced."""

    epoch: int
    offset: int


class Outcome(enum.Enum):
    """What a leader's write, fsynced, has become (:func:`settle`)."""

    LEADING = "leading"  # no newer claim: acknowledge it
    COMMITTED = "committed"  # a newer leader's fence lies above it: acknowledge, step down
    FENCED = "fenced"  # at or above the fence: not in the log; refuse it, step down
    UNDECIDED = "undecided"  # a newer claim without a fence yet: publish one, settle again


def claim_path(directory: Path, epoch: int) -> Path:
    return directory / f"leader-epoch-{epoch:010d}.claim"


def fence_path(directory: Path, epoch: int) -> Path:
    return directory / f"leader-epoch-{epoch:010d}.fence"


def claim_epoch(directory: Path, epoch: int, node_id: int) -> bool:
    """Claim ``epoch`` for ``node_id``: True when this call created the claim, False when
    another node holds it already."""
    return publish_file(claim_path(directory, epoch), _line(b"claim", epoch, node_id))


def read_claim(directory: Path, epoch: int) -> Claim | None:
    """Who claimed ``epoch``, or ``None`` when nobody has."""
    value = _read(claim_path(directory, epoch), b"claim", epoch)
    return None if value is None else Claim(epoch, value)


def claimed_after(directory: Path, epoch: int) -> bool:
    """Whether a newer epoch than ``epoch`` has been claimed (one ``stat``: claims are made in
    order, so any newer one means ``epoch + 1``'s exists). Every shared group commit asks it,
    so the name is built once per epoch (:func:`_claim_name`)."""
    return os.path.lexists(_claim_name(directory, epoch + 1))


@functools.lru_cache(maxsize=64)
def _claim_name(directory: Path, epoch: int) -> str:
    """:func:`claim_path` as a string, kept: building the path costs more than the ``stat``
    it is for. Thread-safe (``lru_cache`` is). Cost: O(1), a dict lookup once built."""
    return str(claim_path(directory, epoch))


def newest_claim(directory: Path) -> Claim | None:
    """The claim of the newest epoch, or ``None`` before the first."""
    epochs = [epoch for epoch, kind in _names(directory) if kind == "claim"]
    return read_claim(directory, max(epochs)) if epochs else None


def newest_claimed(directory: Path) -> int:
    """The newest claimed epoch, -1 before the first claim. Cost: one directory scan."""
    return max((epoch for epoch, kind in _names(directory) if kind == "claim"), default=-1)


def publish_fence(directory: Path, epoch: int, offset: int) -> Fence:
    """Fence the epochs before ``epoch`` at ``offset`` (the end of their whole batches, which
    the caller has fsynced), unless a fence is there already: the fence that holds."""
    if read_claim(directory, epoch) is None:
        raise LogError(f"no claim of epoch {epoch} in {directory}: nothing to fence for")
    publish_file(fence_path(directory, epoch), _line(b"fence", epoch, offset))
    fence = read_fence(directory, epoch)
    assert fence is not None  # published, by this call or an earlier one; never removed
    return fence


def read_fence(directory: Path, epoch: int) -> Fence | None:
    """Where epoch ``epoch``'s log begins, or ``None`` while it has no fence."""
    value = _read(fence_path(directory, epoch), b"fence", epoch)
    return None if value is None else Fence(epoch, value)


def settle(directory: Path, epoch: int, last_offset: int) -> Outcome:
    """What a write of epoch ``epoch`` ending at ``last_offset``, already fsynced, has become;
    call it before acknowledging the write (see the module's docstring)."""
    if not claimed_after(directory, epoch):
        return Outcome.LEADING
    fence = read_fence(directory, epoch + 1)
    if fence is None:
        return Outcome.UNDECIDED
    return Outcome.COMMITTED if last_offset < fence.offset else Outcome.FENCED


class Fences:
    """Every fence of a directory, oldest epoch first: which batches are part of the log."""

    def __init__(self, fences: list[Fence]) -> None:
        self.fences = sorted(fences, key=lambda fence: fence.epoch)

    def fenced(self, epoch: int, base_offset: int) -> bool:
        """Whether a batch of ``epoch`` starting at ``base_offset`` is fenced: at or above the
        fence of a newer epoch. Cost: O(fences)."""
        return any(f.epoch > epoch and base_offset >= f.offset for f in self.fences)


def load_fences(directory: Path) -> Fences:
    """The fences of ``directory``."""
    found = [read_fence(directory, e) for e, kind in _names(directory) if kind == "fence"]
    return Fences([fence for fence in found if fence is not None])


def fences_from(directory: Path, offset: int) -> list[Fence]:
    """The fences above ``offset`` and the newest at or below it, newest epoch first: those
    that can end a segment whose base is ``offset`` or higher, and the one its batches must be
    as new as. Fences rise with their epochs (each is read from the log after the one before
    it), so the newest are read first and the first at or below ``offset`` ends the search.
    Cost: one directory scan, and a small read per fence returned."""
    epochs = sorted((e for e, kind in _names(directory) if kind == "fence"), reverse=True)
    found = []
    for epoch in epochs:
        fence = read_fence(directory, epoch)
        if fence is None:
            continue
        found.append(fence)
        if fence.offset <= offset:
            break
    return found


def _names(directory: Path) -> list[tuple[int, str]]:
    matches = (_NAME.fullmatch(entry.name) for entry in os.scandir(directory))
    return [(int(m.group(1)), m.group(2)) for m in matches if m is not None]


def _line(kind: bytes, epoch: int, value: int) -> bytes:
    body = b"aclog-%s v1 %010d %+021d" % (kind, epoch, value)
    return body + b" %08x\n" % calc_crc32c(body)


def _read(path: Path, kind: bytes, epoch: int) -> int | None:
    try:
        data = files.read_bytes(path)
    except FileNotFoundError:
        return None
    body, _, rest = data.rpartition(b" ")
    fields = body.split(b" ")
    whole = rest == b"%08x\n" % calc_crc32c(body) and len(fields) == 4
    if whole and fields[:2] == [b"aclog-" + kind, b"v1"] and fields[2] == b"%010d" % epoch:
        try:
            return int(fields[3])
        except ValueError:
            pass
    raise CorruptLogError(str(path), 0, f"not a whole {kind.decode()} of epoch {epoch}")
