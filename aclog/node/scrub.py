"""A running node's scrub: every ``interval`` seconds, re-read what it has acknowledged — every
batch of the log (header and CRC-32C, :func:`aclog.log.check.check_batches`) and every
snapshot's checksum — so that damage is found while the server runs, not at its next start.

Damage to the log stops writes: until a later pass finds the log whole again (the segment
restored), :attr:`Scrub.damage` holds the error, and the node answers every write with
KAFKA_STORAGE_ERROR (56) naming the file and the byte, instead of acknowledging writes behind
bytes that the next start would refuse. It is logged once, at ERROR, when found and once when
it clears. A damaged snapshot is logged the same way but stops nothing: readers then use an
older snapshot or the log.

Thread-safe: one daemon thread runs the passes; :attr:`damage` is a single reference read
without a lock. Cost: O(log bytes + snapshot bytes) a pass, a header unpack and a CRC-32C per
batch (:func:`~aclog.log.check.check_batches`; the ``log`` suite's ``read (CRC + batch parse)``
row bounds it), on its own thread. A pass works one segment at a time and rests after each for
nine times as long as it took, so it never holds more than :data:`DUTY` of a core (and of the
GIL the listener's event loop needs): a large log is scrubbed more slowly, not more
expensively. Passes start ``interval`` seconds apart (60 s by default).
"""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path

from aclog.log import CorruptLogError, list_segments
from aclog.log.check import check_batches
from aclog.snapshot import SnapshotError, read_snapshot
from aclog.snapshot.naming import list_snapshots

logger = logging.getLogger(__name__)

DUTY = 0.1
"""The most of one core a pass takes: it rests after each segment."""


class Scrub:
    """Checks one data directory on a schedule; :meth:`start` and :meth:`stop` the thread."""

    def __init__(self, directory: Path, interval: float) -> None:
        self.directory = directory
        self.interval = interval
        self.damage: CorruptLogError | None = None
        """The damage the last pass found in the log, or ``None``."""
        self._bad_snapshots: set[Path] = set()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Run a pass every ``interval`` seconds on a daemon thread."""
        self._thread = threading.Thread(target=self._run, name="aclog-scrub", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop the thread (a pass under way finishes first)."""
        self._stopping.set()
        if self._thread is not None:
            self._thread.join(30)

    def _run(self) -> None:
        while not self._stopping.wait(self.interval):
            try:
                self.run_pass()
            except OSError as error:  # a file that vanished under the pass: try again later
                logger.warning("the scrub of %s could not finish: %s", self.directory, error)

    def run_pass(self) -> None:
        """Check the log, a segment at a time, and the snapshots once; say what changed.
        Damage stops writes as soon as it is found; only a whole pass without any resumes
        them."""
        segments = list_segments(self.directory)
        bounds = [base for base, _ in segments[1:]] + [None]
        for (base, _), following in zip(segments, bounds, strict=True):
            started = time.monotonic()
            try:
                check_batches(self.directory, base, following)
            except CorruptLogError as error:
                self._found(error)
                break
            if self._stopping.wait((time.monotonic() - started) * (1 / DUTY - 1)):
                return
        else:
            if self.damage is not None:
                logger.error("the scrub finds the log whole again; writes resume")
            self.damage = None
        self._check_snapshots()

    def _found(self, error: CorruptLogError) -> None:
        if self.damage is None or str(self.damage) != str(error):
            logger.error("the scrub found damage; writes stop until it is repaired: %s", error)
        self.damage = error

    def _check_snapshots(self) -> None:
        bad = set()
        for snapshot in list_snapshots(self.directory):
            try:
                read_snapshot(snapshot.path)  # checks its size and checksum, decodes nothing
            except SnapshotError as error:
                bad.add(snapshot.path)
                if snapshot.path not in self._bad_snapshots:
                    logger.error("the scrub found a damaged snapshot: %s", error)
            except FileNotFoundError:
                continue  # removed by retention meanwhile
        self._bad_snapshots = bad
