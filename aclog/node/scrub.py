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
without a lock. Cost: a pass reads the whole log and the snapshots' bytes once, about a
microsecond per small batch (a 23 MB log of 200,000 batches: 0.2 s of one core per
``interval``, 60 s by default), on its own thread.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path

from aclog.log import CorruptLogError
from aclog.log.check import check_batches
from aclog.snapshot import SnapshotError, read_snapshot
from aclog.snapshot.naming import list_snapshots

logger = logging.getLogger(__name__)


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
        """Check the log and the snapshots once; say what changed."""
        try:
            check_batches(self.directory)
        except CorruptLogError as error:
            if self.damage is None or str(self.damage) != str(error):
                logger.error("the scrub found damage; writes stop until it is repaired: %s", error)
            self.damage = error
        else:
            if self.damage is not None:
                logger.error("the scrub finds the log whole again; writes resume")
            self.damage = None
        self._check_snapshots()

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
