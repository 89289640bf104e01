"""The metadata loader: builds a broker's view of the log and keeps it current.

At start it loads the newest valid snapshot and replays the log after it (or, beside the
writer in its process, takes the image the writer rebuilt as it opened), then publishes the
result once, as a SNAPSHOT, only after it has caught up with the end of the log; until then the
authorizer it feeds is not ready and only super users pass. Afterwards it tails the log and
publishes each poll's new batches as one LOG_DELTA; when the writer runs in the same process it
instead offers each commit's batches as soon as they are durable (:meth:`MetadataLoader.offer`),
and the poll only picks up what an offer missed. Publishers see whole batches only, in log
order, and every publisher sees every update in registration order.

Polls and offers are serialized by one lock, so any thread may call them; publishers make what
they publish safe for readers. Cost: a poll with nothing new is two ``stat`` calls (none when
the in-process writer's durable end says so); otherwise O(new records).
"""

from __future__ import annotations

import enum
import logging
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from aclog.image import MetadataDelta, MetadataImage, MetadataProvenance
from aclog.log.reader import LogTail
from aclog.records.collector import gc_paused
from aclog.records.warning import OnWarning
from aclog.replay.batches import CommittedBatch, ReplayBatch, replay_batches
from aclog.replay.rebuild import rebuild_image
from aclog.replay.runs import decoded_runs

logger = logging.getLogger(__name__)


class ManifestKind(enum.Enum):
    """Whether an update replaces the whole state or applies changes to the previous one."""

    SNAPSHOT = "SNAPSHOT"
    LOG_DELTA = "LOG_DELTA"


@dataclass(frozen=True)
class Manifest:
    """What one update contains: its kind, where it ends and how much it covers."""

    kind: ManifestKind
    provenance: MetadataProvenance
    batches: int
    records: int


class Publisher(Protocol):
    """Receives every update: the delta (``None`` for a SNAPSHOT) and the new image."""

    def publish(
        self, delta: MetadataDelta | None, image: MetadataImage, manifest: Manifest
    ) -> None: ...


class MetadataLoader:
    """Follows one data directory's log and feeds publishers."""

    def __init__(
        self,
        directory: Path | str,
        publishers: Sequence[Publisher] = (),
        *,
        poll_interval: float = 0.01,
        on_warning: OnWarning = logger.warning,
        durable_end: Callable[[], int] | None = None,
        image: MetadataImage | None = None,
    ) -> None:
        self.directory = Path(directory)
        # The offset below which the log is fsynced (the in-process writer's end, or the
        # recovery point of a log others append to): a batch written but not yet durable
        # (its fsync may still fail and cut it) is not published.
        self.durable_end = durable_end
        self._tail = LogTail(self.directory)  # polls read only what was appended since
        self.publishers = list(publishers)
        self.poll_interval = poll_interval
        self.on_warning = on_warning
        self.image = MetadataImage.EMPTY
        # The writer's image of this log as it opened (its own replay of it): catch-up starts
        # there instead of replaying the whole log again, and polls read what follows it.
        self._opened = image
        self.caught_up = False
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._poll_lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def catch_up(self) -> Manifest:
        """Load the newest snapshot and the log after it (or take the writer's image of it, when
        given one), then publish it as one SNAPSHOT."""
        if self._opened is not None:
            self.image, self._opened = self._opened, None
            manifest = Manifest(ManifestKind.SNAPSHOT, self.image.provenance, 0, 0)
        else:
            manifest = self._rebuild()
        self._publish(
            None, manifest
        )  # rebuilt: from a table, which the authorizer loads by columns
        if self.durable_end is not None:  # beside a writer: its commits come a few at a time
            self.image = self.image.in_a_mapping()
        self.caught_up = True
        return manifest

    def _rebuild(self) -> Manifest:
        """Load the newest snapshot and replay the log after it into :attr:`image`."""
        rebuilt = rebuild_image(self.directory, on_warning=self.on_warning)
        self.image = rebuilt.image
        return Manifest(
            ManifestKind.SNAPSHOT,
            self.image.provenance,
            rebuilt.batches_replayed,
            rebuilt.records_replayed,
        )

    def poll(self) -> Manifest | None:
        """Replay the batches committed since the last poll and publish them as one delta.

        Any thread may poll: the loader thread does so every interval, and a writer that wants
        its own commit published polls itself rather than waking the loader and waiting for it
        (two thread hand-offs, each up to the interpreter's 5 ms switch interval). Polls are
        serialized, so publishers still see one delta at a time, in log order."""
        with self._poll_lock:
            return self._poll()

    def offer(self, batches: Sequence[CommittedBatch]) -> Manifest | None:
        """Replay and publish batches the writer in this process has just made durable,
        without reading them back (see :meth:`Controller.add_commit_listener`): the same
        replay as a poll, from the records the writer appended rather than from their bytes.

        Offers that do not follow the published image exactly (one was missed, or another
        process wrote in between) are not trusted: the loader polls the log instead.

        From the first offer on (from catch-up when a ``durable_end`` says a writer's commits
        come a few at a time) the image holds its ACLs in a mapping, as the writer's does
        (:meth:`~aclog.image.metadata.MetadataImage.in_a_mapping`): a commit of one ACL then
        replays in microseconds, not the fraction of a millisecond a table apply costs."""
        with self._poll_lock:
            if not self.caught_up:
                return self.catch_up()
            if not batches or batches[0].base_offset != self.image.provenance.last_offset + 1:
                return self._poll()
            # Commits come a few ACLs at a time: onto a mapping each costs dict operations,
            # onto a table a fixed numpy cost per run. O(ACLs) once.
            self.image = self.image.in_a_mapping()
            return self._replay(batches)

    def _poll(self) -> Manifest | None:
        if not self.caught_up:
            return self.catch_up()
        start = self.image.provenance.last_offset + 1
        if self.durable_end is None:
            return self._replay(decoded_runs(self._tail.read(start), start))
        limit = self.durable_end()
        if limit <= start:
            return None  # nothing durable beyond what was offered or read: nothing to read
        return self._replay(decoded_runs(self._tail.read(start, limit), start))

    def _replay(self, batches: Iterable[ReplayBatch]) -> Manifest | None:
        """Replay ``batches`` (in log order, following the image) as one delta and publish it."""
        replayed = replay_batches(self.image, batches)
        if replayed.delta is None:
            return None
        self.image = replayed.image
        provenance = replayed.image.provenance
        manifest = Manifest(ManifestKind.LOG_DELTA, provenance, replayed.batches, replayed.records)
        self._publish(replayed.delta, manifest)
        return manifest

    def _publish(self, delta: MetadataDelta | None, manifest: Manifest) -> None:
        for publisher in self.publishers:
            publisher.publish(delta, self.image, manifest)

    # -- the loader thread ---------------------------------------------------------------------

    def start(self) -> None:
        """Catch up on the calling thread, then tail the log on a daemon thread.

        This is a process edge, so it decides about the process-wide garbage collector (the
        library calls never do): the image and the publishers' first build (the authorizer's
        index) live as long as the broker, so they are built with the collector paused and then
        frozen, and no later collection walks those millions of objects (the temporary arrays
        the build freed go back to the system then, not kept resident); each poll of the
        thread runs paused too (a backlog's replay makes O(records) objects the collector would
        walk again and again; the ``smallbatch`` suite's ``aclog loader`` rows). See
        :func:`~aclog.records.collector.gc_paused`.
        """
        with gc_paused(freeze=True):
            self.catch_up()
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="aclog-loader", daemon=True)
        self._thread.start()

    def wake(self) -> None:
        """Poll now rather than at the end of the current interval: a writer waiting to see its
        own commit published then waits for one poll, not for half an interval on average."""
        self._wake.set()

    def _run(self) -> None:
        while not self._stop.is_set():
            # Cleared before the poll: a wake during the poll (a newer commit) polls again.
            self._wake.clear()
            try:
                with gc_paused():  # see start()
                    self.poll()
            except Exception:  # keep following; the error is the log's or a publisher's
                logger.exception("metadata loader failed to apply new batches; retrying")
                time.sleep(1.0)
            self._wake.wait(self.poll_interval)

    def stop(self, timeout: float = 5.0) -> None:
        """Stop the tailing thread and wait for it."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None
