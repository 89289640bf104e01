"""Who leads a shared data directory and where clients reach it: the ``quorum-state`` file.

KRaft keeps the same facts in a ``quorum-state`` file beside its log. An aclog controller writes
it right after winning an election (its leader-change record is already durable), so the other
servers on the directory can tell Kafka clients where the active controller listens. The log
stays the authority: a state whose epoch is not the log's newest epoch is out of date (its
leader died or was deposed before writing the file) and :meth:`QuorumStateFile.current`
ignores it.

Thread-safe: the file is replaced atomically and read whole. Cost of a read: one ``stat``, plus
parsing a few dozen bytes when the file changed.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from dataclasses import dataclass
from pathlib import Path

from aclog.log import files
from aclog.log.durable import replace_file

FILE_NAME = "quorum-state"
logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class QuorumState:
    """Controller ``leader_id`` leads ``epoch``; Kafka clients reach it at ``listener``
    (``host:port``), or nowhere known when ``None``."""

    leader_id: int
    epoch: int
    listener: str | None = None

    def to_json(self) -> bytes:
        fields = {"leader_id": self.leader_id, "epoch": self.epoch, "listener": self.listener}
        return json.dumps(fields, sort_keys=True).encode("utf-8") + b"\n"

    @classmethod
    def from_json(cls, data: bytes) -> QuorumState:
        """Parse the file's content; ``ValueError`` when it is not a quorum state."""
        fields = json.loads(data)
        leader_id, epoch, listener = fields["leader_id"], fields["epoch"], fields["listener"]
        if type(leader_id) is not int or type(epoch) is not int:
            raise ValueError("leader_id and epoch must be integers")
        if listener is not None and not isinstance(listener, str):
            raise ValueError("listener must be a string or null")
        return cls(leader_id, epoch, listener)


class QuorumStateFile:
    """The ``quorum-state`` file of one data directory, with the last read cached."""

    def __init__(self, directory: Path | str) -> None:
        self.path = Path(directory) / FILE_NAME
        self._lock = threading.Lock()
        self._seen: tuple[int, int] | None = None
        self._state: QuorumState | None = None

    def write(self, state: QuorumState) -> None:
        """Replace the file durably; raises ``OSError``."""
        replace_file(self.path, state.to_json())

    def read(self) -> QuorumState | None:
        """The state in the file; ``None`` when there is no file or it cannot be parsed
        (logged once per version of the file)."""
        try:
            stat = os.stat(self.path)
        except FileNotFoundError:
            return None
        key = (stat.st_mtime_ns, stat.st_size)
        with self._lock:
            if key != self._seen:
                self._seen, self._state = key, self._parse()
            return self._state

    def current(self, log_epoch: int) -> QuorumState | None:
        """The state when it speaks for ``log_epoch`` (the log's newest epoch), else ``None``."""
        state = self.read()
        return state if state is not None and state.epoch == log_epoch else None

    def _parse(self) -> QuorumState | None:
        try:
            return QuorumState.from_json(files.read_bytes(self.path))
        except (OSError, ValueError, KeyError, TypeError) as error:
            logger.warning(
                "ignoring %s: %s (the active controller rewrites it at its next election)",
                self.path,
                error,
            )
            return None
