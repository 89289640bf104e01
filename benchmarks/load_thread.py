"""A probe client's write loop in its own thread (:mod:`benchmarks.failover_probe`'s load on
aclog and :mod:`benchmarks.kafka_failover`'s on Kafka).

Thread-safety: :meth:`Writer.start` and :meth:`Writer.stop` are called by the one driving
thread. Cost: one daemon thread.
"""

from __future__ import annotations

import threading
from typing import Self


class Writer:
    """A client's write loop (``_run``, until ``_stop`` is set) in its own daemon thread, from
    :meth:`start` until :meth:`stop`; the subclass holds ``_stop`` and ``_thread``."""

    _stop: threading.Event
    _thread: threading.Thread | None

    def _run(self) -> None:
        raise NotImplementedError

    def start(self) -> Self:
        self._thread = threading.Thread(target=self._run, name="probe-load", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(30)
