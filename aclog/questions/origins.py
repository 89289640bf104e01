"""Where each ACL came from: the base offset of the batch that added it, by ACL id, for
"which change created this binding" (explain's and lint's links to the change).

Batches are fed in log order as they are read (:meth:`AclOrigins.add`); a lookup is a binary
search over the ids seen, held as sorted 16-byte keys beside their offsets (about 24 bytes an
ACL, not a Python object each).

Not thread-safe: the caller serialises ``add`` and ``origin_of`` (the UI's log source holds
its lock). Cost: ``add`` O(records); the first lookup after additions sorts them in
(O(n log n) for the new ones, a merge copy of the rest); a lookup O(log ACLs).
"""

from __future__ import annotations

import uuid
from typing import Any

import numpy as np

from aclog.records import AccessControlEntryRecord
from aclog.replay import DecodedBatch

_KEY = "S16"
"""A UUID's 16 bytes (every key is 16 bytes long, so NUL padding never merges two)."""


class AclOrigins:
    """ACL id -> the base offset of the batch that added it, for the batches fed so far."""

    def __init__(self) -> None:
        self._keys: Any = np.empty(0, dtype=_KEY)
        self._offsets: Any = np.empty(0, dtype=np.int64)
        self._new_keys: list[bytes] = []
        self._new_offsets: list[int] = []

    def __len__(self) -> int:
        return len(self._keys) + len(self._new_keys)

    def add(self, batch: DecodedBatch) -> None:
        """Record the ACLs ``batch`` adds (fed in log order)."""
        for record in batch.records:
            if isinstance(record, AccessControlEntryRecord):
                self._new_keys.append(record.id.bytes)
                self._new_offsets.append(batch.base_offset)

    def origin_of(self, acl_id: uuid.UUID) -> int | None:
        """The base offset of the batch that added ``acl_id``; ``None`` if none fed did."""
        self._settle()
        key = np.array([acl_id.bytes], dtype=_KEY)
        at = int(np.searchsorted(self._keys, key)[0])
        if at < len(self._keys) and self._keys[at] == key[0]:
            return int(self._offsets[at])
        return None

    def _settle(self) -> None:
        """Sorts the ids added since the last lookup in with the rest."""
        if not self._new_keys:
            return
        keys = np.concatenate([self._keys, np.array(self._new_keys, dtype=_KEY)])
        offsets = np.concatenate([self._offsets, np.array(self._new_offsets, dtype=np.int64)])
        order = np.argsort(keys, kind="stable")
        self._keys, self._offsets = keys[order], offsets[order]
        self._new_keys, self._new_offsets = [], []
