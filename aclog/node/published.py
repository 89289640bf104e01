"""How far the broker side has published: the last offset the metadata loader handed to its
publishers, and a way for a writer to wait for its own commit to be published.

Thread-safe (a condition variable). Cost: a publish is O(1); a wait blocks until the offset
arrives or the timeout passes.
"""

from __future__ import annotations

import threading

from aclog.broker import Manifest
from aclog.image import MetadataDelta, MetadataImage


class PublishedOffset:
    """A publisher that remembers the last offset the loader published and lets writers wait
    for it. Registered last, so when it sees an offset every other publisher has it too."""

    def __init__(self) -> None:
        self._condition = threading.Condition()
        self._offset = -1

    @property
    def offset(self) -> int:
        """The last published offset (-1 before the first record)."""
        return self._offset

    def publish(
        self, delta: MetadataDelta | None, image: MetadataImage, manifest: Manifest
    ) -> None:
        with self._condition:
            self._offset = image.provenance.last_offset
            self._condition.notify_all()

    def wait_for(self, offset: int, timeout: float) -> bool:
        """Block until ``offset`` is published; False if ``timeout`` seconds pass first."""
        with self._condition:
            return self._condition.wait_for(lambda: self._offset >= offset, timeout)
