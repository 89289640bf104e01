"""Policy snapshots written off the commit path.

Writing a snapshot of a million ACLs takes seconds; written inside a commit, it would hold every
other request for that long each time the policy fires (every 20 MiB of log by default). Images
are immutable, so the committed image can be written by another thread while commits go on, as
KRaft's controller does.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from aclog.image import MetadataImage

logger = logging.getLogger(__name__)


class BackgroundSnapshotter:
    """Represents the one snapshot a controller may have in progress at a time.

    Thread-safe. :meth:`offer` costs a thread start when it accepts; the write itself runs on
    that thread.
    """

    def __init__(self, write: Callable[[MetadataImage], object]) -> None:
        self._write = write
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    @property
    def busy(self) -> bool:
        """Whether a snapshot is being written now."""
        thread = self._thread
        return thread is not None and thread.is_alive()

    def offer(self, image: MetadataImage) -> bool:
        """Start writing ``image`` unless a snapshot is already in progress (then the caller
        offers a newer image later); True when it started."""
        with self._lock:
            if self.busy:
                return False
            self._thread = threading.Thread(
                target=self._run, args=(image,), name="aclog-snapshot", daemon=True
            )
            self._thread.start()
            return True

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the snapshot in progress, if any; False if it is still running after
        ``timeout`` seconds."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
        return not self.busy

    def _run(self, image: MetadataImage) -> None:
        try:
            self._write(image)
        except OSError as error:
            # The commits it covers are durable in the log; a failed snapshot only means
            # replay starts from an older one until the next succeeds.
            logger.warning("snapshot at offset %d failed: %s", image.provenance.last_offset, error)
        except Exception:
            logger.exception("snapshot at offset %d failed", image.provenance.last_offset)
