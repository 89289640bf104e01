"""The ACLs and binding index as a big delta leaves them, kept up to date while it replays: the
working copy of :class:`~aclog.image.acl_batches.AclBatchReplayer`.

A delta bigger than a :class:`~aclog.image.layered.LayeredMap` overlay may grow ends in a fold
anyway: :meth:`AclsDelta.apply` copies the base maps and writes every change into the copies.
:class:`WorkingAcls` makes those copies at the first big batch instead and writes each batch
into them as it is replayed, so that the write also checks the batch: a dict that grew by less
than the additions held one of their ids (or keys) already. The checks against the stored image
then cost no probe of their own, and the replayer hands the copies over as the next image
without writing anything. The delta's own bookkeeping (changes, added keys, removed ids) stays
as it was, though it takes in the batches written here only when it is read: this is a mirror
of the current state, never the source of a rule.

Not thread-safe; owned by its replayer, and dropped as soon as a write finds a conflict, since
the maps may then hold part of a batch. Cost: O(ACLs) once, to copy; then per batch O(batch)
dict operations that reuse the batch dicts' stored hashes.
"""

from __future__ import annotations

import uuid
from itertools import repeat
from operator import attrgetter, is_
from typing import cast

from aclog.records.build import consume
from aclog.records.types import AccessControlEntryRecord, AclKey, acl_keys

Acls = dict[uuid.UUID, AccessControlEntryRecord]
Index = dict[AclKey, uuid.UUID]
Removed = tuple[list[AccessControlEntryRecord], list[AclKey]]
"""The stored ACLs a batch removes, and their binding keys."""
_id_of = attrgetter("id")


class WorkingAcls:
    """Represents the current ACLs (by id, in the order the next image keeps) and binding
    index of a delta, as plain dicts that the delta changes in place."""

    __slots__ = ("acls", "index")

    def __init__(self, acls: Acls, index: Index) -> None:
        self.acls = acls
        self.index = index

    def removed(self, removals: dict[uuid.UUID, None], bindings: Index) -> Removed | None:
        """The stored ACLs ``removals`` names and their binding keys, or ``None`` (nothing
        changed) when one of them is not stored, or when one of them is among the ``bindings``
        a batch adds: removed then added applies, added then removed does not, so the order
        decides and the one-by-one replay must.

        Cost: one probe per removal (its id hashes and compares in Python: ``uuid.UUID``)."""
        olds: list[AccessControlEntryRecord | None] = list(map(self.acls.get, removals))
        if any(map(is_, olds, repeat(None))):
            return None
        stored = cast(list[AccessControlEntryRecord], olds)
        keys = acl_keys(stored)
        return None if any(map(bindings.__contains__, keys)) else (stored, keys)

    def write_batch(
        self,
        batch: dict[uuid.UUID, AccessControlEntryRecord | None],
        additions: int,
        removed: Removed,
        bindings: Index,
    ) -> bool:
        """Write a batch whose ids (``batch``: record, or ``None`` for a removal) are distinct,
        whose removals gave ``removed`` (:meth:`removed`), and whose
        ``bindings`` (key -> id of each of its ``additions``) are distinct; ``False`` when an
        addition's id or binding is stored already (then the maps hold part of the batch).

        Such a batch applies as a whole exactly when replaying it record by record would: its
        records commute (distinct ids, and no binding both removed and added).
        """
        acls, index = self.acls, self.index
        olds, old_keys = removed
        size = len(acls)
        acls.update(batch)  # type: ignore[arg-type]  # the removals' None values go below
        # The removals' ids were present: only additions can grow the map.
        if len(acls) != size + additions:
            return False
        # By the stored records' own ids: the map holds those very objects (as a rule), so
        # each probe ends on an identity check, not a call of UUID.__eq__.
        consume(map(acls.__delitem__, map(_id_of, olds)))
        consume(map(index.pop, old_keys, repeat(None)))
        size = len(index)
        index.update(bindings)
        return len(index) == size + len(bindings)

    def add(self, record: AccessControlEntryRecord, key: AclKey) -> None:
        """Mirror one addition the delta accepted."""
        self.acls[record.id] = record
        self.index[key] = record.id

    def remove(self, acl_id: uuid.UUID) -> None:
        """Mirror one removal the delta accepted."""
        old = self.acls.pop(acl_id)
        self.index.pop(old.key, None)
