"""The data directory as the UI reads it: the state as of a moment, and a summary of every
committed batch, each as of the log's current end, so a page shows what a writer appended a
moment ago without a restart. Reads only: no lock is taken and no byte or mtime moves (the
same readers as ``aclog replay`` and ``aclog dump``).

Thread-safe: one lock guards the caches (Starlette runs sync handlers on a thread pool). Cost:
a request stats the segments (the *stamp*); the latest state is advanced by replaying only the
batches appended since it was built, the batch summaries likewise; a past state is replayed
from the nearest state kept before it (one asked for, or a checkpoint kept every so many
records: :mod:`aclog.ui.checkpoints`) or rebuilt from the newest snapshot before it, and kept
in a small LRU keyed by the moment and the stamp; so
are the last few lint answers (the findings are kept by the library per image, a diff per
pair of states).
"""

from __future__ import annotations

import contextlib
import threading
import uuid
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Protocol

from aclog.image import MetadataImage, ReplayError
from aclog.log import CorruptLogError, LogError, list_segments
from aclog.questions import AclOrigins, ChangeSplit, SplitBy, lint_image, split_changes
from aclog.records import RecordDecodeError, call_paused, gc_paused, release_freed_heap
from aclog.replay import (
    DecodedBatch,
    Diff,
    Point,
    RebuildError,
    diff_images,
    read_decoded,
    rebuild_image,
    replay_tail,
)
from aclog.ui.checkpoints import Checkpoints, Stamp, grew
from aclog.ui.summary import BatchSummary, summarize

READ_ERRORS: tuple[type[Exception], ...] = (
    CorruptLogError,
    LogError,
    RecordDecodeError,
    ReplayError,
    RebuildError,
    OSError,
)
"""What reading a data directory raises for the data rather than for a bug."""

_PAST_STATES = 8
"""Past states kept: a person moves between a few moments; each holds a whole image."""

_ANSWERS = 4
"""Lint answers kept: each is one JSON document, of the size of what it lists."""


class Answered(Protocol):
    """A lint report: what :meth:`LogSource._answer` keeps the JSON of."""

    def to_dict(self) -> dict[str, Any]: ...


class LogProblem(Exception):
    """The data directory cannot answer: ``status`` is the HTTP status to show, the message
    says what is wrong and what to do."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


class LogSource:
    """A data directory opened read-only for the UI (see the module's docstring)."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._lock = threading.Lock()
        self._latest: tuple[Stamp, MetadataImage] | None = None
        self._past: OrderedDict[tuple[Stamp, int | None, int | None], MetadataImage]
        self._past = OrderedDict()
        self._summaries: tuple[Stamp, list[BatchSummary]] | None = None
        self._splits: dict[str, tuple[Stamp, ChangeSplit]] = {}
        self._origins = AclOrigins()
        self._checkpoints: Checkpoints[Stamp] = Checkpoints(directory)
        self._warmed = threading.Event()
        self._warmed.set()  # set while no warm build runs
        self._answers: OrderedDict[tuple[object, ...], dict[str, Any]] = OrderedDict()

    def stamp(self) -> Stamp:
        """The stamp of the log as it is now; :class:`LogProblem` when there is no directory."""
        try:
            if not self.directory.is_dir():
                raise LogProblem(
                    f"no data directory at {self.directory}: it does not exist or is not a "
                    "directory (was it moved?)",
                    404,
                )
            found = []
            for base, path in list_segments(self.directory):
                info = path.stat()
                found.append((base, info.st_size, info.st_mtime_ns))
            return tuple(found)
        except OSError as error:
            raise LogProblem(
                f"cannot read {self.directory}: {error.strerror or error}", 403
            ) from None

    def state(self, at_offset: int | None = None, at_time_ms: int | None = None) -> MetadataImage:
        """The state after every whole batch at or below ``at_offset`` and at or before
        ``at_time_ms`` (both ``None``: the log's end now)."""
        stamp = self.stamp()
        with self._lock, _read_problems(self.directory):
            if at_offset is None and at_time_ms is None:
                return self._latest_state(stamp)
            key = (stamp, at_offset, at_time_ms)
            image = self._past.get(key)
            if image is None:
                image = self._past_state(stamp, at_offset, at_time_ms)
                self._past[key] = image
                if len(self._past) > _PAST_STATES:
                    self._past.popitem(last=False)
            self._past.move_to_end(key)
            return image

    def warm(self) -> None:
        """Builds the state at the log's end now, so that a server's first page finds it
        built (or waits under the lock for this build rather than starting another), then
        its lint findings (the Lint view's; their temporaries, a few hundred MB at 1M ACLs,
        peak while the process holds least), then the states kept every so many records
        (:mod:`aclog.ui.checkpoints`), so that a step to any moment replays a short
        stretch. What it built is frozen (:func:`aclog.records.gc_paused`): the findings'
        objects would otherwise make each full collection after it a quarter of a second at
        1M ACLs. A failure is left to the request that asks: it meets the same and reports
        it."""
        with contextlib.suppress(Exception), gc_paused(freeze=True):
            stamp = self.stamp()
            end = self.state().provenance.last_offset
            release_freed_heap()  # the snapshot's columns and the tail's batches
            self.lint(None, None)
            release_freed_heap()
            self._checkpoints.build(stamp, end)
        release_freed_heap()
        self._warmed.set()

    def warm_in_background(self) -> None:
        """:meth:`warm` on a thread of its own, from now on (a server starts so)."""
        self._warmed.clear()
        threading.Thread(target=self.warm, name="aclog-ui-warm", daemon=True).start()

    def _past_state(
        self, stamp: Stamp, at_offset: int | None, at_time_ms: int | None
    ) -> MetadataImage:
        """The state at a past point: for an offset, the nearest state kept at or below it
        (one asked for before, or a checkpoint) advanced over the batches between (a step
        forward on the timeline replays only them); otherwise rebuilt from the newest
        snapshot before the point."""
        if at_offset is not None and at_time_ms is None:

            def valid(made: Stamp) -> bool:
                return made == stamp or grew(made, stamp)

            kept = [
                image
                for (made, offset, when), image in self._past.items()
                if when is None and offset is not None and offset <= at_offset and valid(made)
            ]
            checkpoint = self._checkpoints.nearest(at_offset, valid)
            if checkpoint is not None:
                kept.append(checkpoint)
            if kept:
                base = max(kept, key=lambda image: image.provenance.last_offset)
                start = base.provenance.last_offset + 1
                return replay_tail(self.directory, base, start, at_offset=at_offset)[0]
        return rebuild_image(self.directory, at_offset=at_offset, at_time_ms=at_time_ms).image

    def _latest_state(self, stamp: Stamp) -> MetadataImage:
        """The cached end state, advanced over the batches appended since (a log whose first
        segment changed, after a retention or a restore, is rebuilt)."""
        if self._latest is not None and self._latest[0] == stamp:
            return self._latest[1]
        if self._latest is not None and grew(self._latest[0], stamp):
            image = self._latest[1]
            image, _ = replay_tail(self.directory, image, image.provenance.last_offset + 1)
        else:
            image = rebuild_image(self.directory).image
        self._latest = (stamp, image)
        return image

    def summaries(self) -> list[BatchSummary]:
        """Every committed batch's summary, oldest first, as of now (a copy); the same read
        feeds the ACL origins (:meth:`origin_of`)."""
        stamp = self.stamp()
        with self._lock, _read_problems(self.directory):
            cached = self._summaries
            if cached is not None and cached[0] == stamp:
                return list(cached[1])
            known = list(cached[1]) if cached is not None and grew(cached[0], stamp) else []
            if not known:
                self._origins = AclOrigins()
            start = known[-1].last_offset + 1 if known else 0
            for batch in read_decoded(self.directory, start):
                known.append(summarize(batch))
                self._origins.add(batch)
            self._summaries = (stamp, known)
            return list(known)

    def split(self, by: SplitBy) -> ChangeSplit:
        """Every batch's ACL changes split ``by`` principal or resource
        (:func:`aclog.questions.split_changes`), as of now: one read of the log each time
        it changes, then kept (one per ``by``)."""
        stamp = self.stamp()
        with self._lock, _read_problems(self.directory):
            cached = self._splits.get(by)
            if cached is None or cached[0] != stamp:
                cached = (stamp, split_changes(read_decoded(self.directory), by))
                self._splits[by] = cached
            return cached[1]

    def batches(self, from_offset: int, to_offset: int) -> list[DecodedBatch]:
        """The decoded batches holding offsets in ``[from_offset, to_offset)``."""
        self.stamp()
        with _read_problems(self.directory):
            return list(read_decoded(self.directory, from_offset, to_offset))

    def diff(self, start: Point, end: Point) -> Diff:
        """The diff between two points (what ``aclog diff`` answers):
        :func:`aclog.replay.diff_images` of the states as of them (:meth:`state`'s, kept),
        which keeps its answer per pair of images. Waits for a warm build under way: both
        make hundreds of MB of temporaries at 1M, and its states start from the checkpoints."""
        self._warmed.wait()
        before = self.state(start.offset, start.time_ms)
        after = self.state(end.offset, end.time_ms)
        with _read_problems(self.directory):
            return call_paused(diff_images, self.directory, before, after)

    def lint(self, at_offset: int | None, at_time_ms: int | None) -> dict[str, Any]:
        """``aclog lint --json`` as of the point (Kafka's default thresholds): the library's
        :func:`~aclog.questions.lint_image` of :meth:`state`'s kept image, which works each
        image's findings out once; its JSON kept as :meth:`_answer` says."""
        return self._answer(
            ("lint", at_offset, at_time_ms),
            lambda: lint_image(self.state(at_offset, at_time_ms)),
        )

    def _answer(self, key: tuple[object, ...], ask: Callable[[], Answered]) -> dict[str, Any]:
        """The JSON of ``ask()`` for ``key`` as of the log now, kept among the newest
        :data:`_ANSWERS` (a page reloaded, paged or revisited answers at once; a commit
        changes the stamp, so nothing stale is served). Computed outside the lock, so a slow
        diff does not hold up other views."""
        full = (self.stamp(), *key)
        with self._lock:
            found = self._answers.get(full)
            if found is not None:
                self._answers.move_to_end(full)
                return found
        with _read_problems(self.directory):
            found = call_paused(ask).to_dict()
        with self._lock:
            self._answers[full] = found
            while len(self._answers) > _ANSWERS:
                self._answers.popitem(last=False)
        return found

    def origin_of(self, acl_id: uuid.UUID) -> int | None:
        """The base offset of the batch that added the ACL ``acl_id`` (``None``: no batch in
        the log did, e.g. it came from a snapshot whose segments were deleted). Cost: a
        binary search of the origins the summaries' read collected
        (:class:`aclog.questions.AclOrigins`), after reading any batch appended since."""
        self.summaries()
        with self._lock:
            return self._origins.origin_of(acl_id)


@contextmanager
def _read_problems(directory: Path) -> Iterator[None]:
    """Turns a damaged or unreadable log into a :class:`LogProblem`: 409 for the data (not
    the request's fault, but nothing a retry fixes), 403 for permissions."""
    try:
        yield
    except OSError as error:
        raise LogProblem(_unreadable(directory, error), 403) from None
    except READ_ERRORS as error:
        raise LogProblem(
            f"the log in {directory} cannot be read: {error} (aclog verify says more)", 409
        ) from None


def _unreadable(directory: Path, error: OSError) -> str:
    return f"cannot read {directory}: {error.strerror or error}"
