"""The batch accelerator of ACL replay: whole batches into an :class:`AclsDelta` at C speed.

One contract: :meth:`AclBatchReplayer.replay_batch` (records in order), ``replay_rows`` (a
decoded batch's ACL records a type at a time, as the columnar decoder gives them) and
:func:`restate` apply a batch exactly as replaying its records one by one into the delta would
(same changes in the same order, same next image and binding index), or decline (return
``False``) with nothing changed, and the caller replays the records one by one, which raises
the error naming the offset. They take what
a controller writes (every id new, each addition's binding stored nowhere, each removal's id in
the base image) and decline everything else: an id twice, a re-added binding, an error.

For a delta big enough that applying it would fold the base map anyway (see
:class:`~aclog.image.layered.LayeredMap`), the replayer keeps a working copy of the current
ACLs and binding index (:mod:`aclog.image.working`): each batch is checked by writing it there,
its bookkeeping in the delta waits until something reads the delta (a catch-up never does),
and :meth:`AclBatchReplayer.apply` hands the copy over as the next image. :meth:`check` states
the invariants that makes safe.

What a batch is made of (its ids, changes, removals and added bindings, from records or from
a decoded batch's rows) is :mod:`aclog.image.acl_batch_parts`; this module checks and writes.

Not thread-safe; owned, with its delta, by the task that replays. Cost: each id is hashed once
(``UUID.__hash__`` runs in Python) and each binding key once, into the batch's own dicts; every
check after that is a set difference or dict update in C that reuses those hashes.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from typing import Any, cast

from aclog.image.acl_batch_parts import AclRecord, BatchParts, Changes, of_records, of_rows
from aclog.image.acls import AclsDelta, AclsImage
from aclog.image.layered import LayeredMap
from aclog.image.working import WorkingAcls
from aclog.records.decoded import AclRows
from aclog.records.types import AccessControlEntryRecord, AclKey, acl_key, acl_keys

_Pending = tuple[Changes | AclRows, dict[AclKey, uuid.UUID], dict[uuid.UUID, None]]
"""A batch written to the working copy only: its changes (or the decoded rows that give them in
order, when the write did not need that order), added bindings and removed ids."""


def restate(delta: AclsDelta, records: list[AccessControlEntryRecord]) -> bool:
    """:meth:`AclsDelta.replay_add` of every record of a snapshot, in one go, into a snapshot
    delta with no changes yet; ``False`` (nothing changed) when they cannot all apply.

    Cost: one id hash and one key per record, in two dict builds (no per-record calls)."""
    if not delta.snapshot or delta.changes:
        return False
    changes: Changes = {r.id: r for r in records}
    if len(changes) != len(records):
        return False  # an id stated twice
    added = dict(zip(acl_keys(records), changes, strict=True))  # no Python call per key
    if len(added) != len(records):
        return False  # an ACL stated twice, under two ids
    delta.take(changes, added, {})
    return True


class AclBatchReplayer:
    """Represents the replay of a stream of batches into one :class:`AclsDelta`.

    While a replayer owns a delta, every replay into it goes through the replayer (one-by-one
    records too: :meth:`replay`), and its :attr:`delta` is read only after :meth:`settle`.
    """

    def __init__(self, delta: AclsDelta) -> None:
        self._delta = delta
        self._working: WorkingAcls | None = None
        self._pending: list[_Pending] = []
        self._pending_removed: set[uuid.UUID] = set()  # the ids the pending batches removed

    @property
    def delta(self) -> AclsDelta:
        """The delta, with every batch replayed so far recorded in it."""
        self.settle()
        return self._delta

    @property
    def working(self) -> WorkingAcls | None:
        """The working copy batches are written to (a big delta), if any."""
        return self._working

    @property
    def pending(self) -> int:
        """How many batches wait in the working copy for :meth:`settle`."""
        return len(self._pending)

    def settle(self) -> None:
        """Record the pending batches in the delta, in order. O(their changes)."""
        if not self._pending:
            return
        pending, self._pending = self._pending, []
        self._pending_removed = set()
        for changes, added, removed in pending:
            self._delta.take(_ordered(changes), added, removed)

    def replay(self, record: AclRecord, offset: int) -> None:
        """:meth:`AclsDelta.replay` of one record, mirrored in the working copy."""
        if self._pending:
            self.settle()
        if type(record) is AccessControlEntryRecord:
            self._delta.replay_add(record, offset)
            if self._working is not None:
                self._working.add(record, acl_key(record))
        else:
            self._delta.replay_remove(record, offset)  # type: ignore[arg-type]
            if self._working is not None:
                self._working.remove(record.id)

    def replay_batch(self, records: Sequence[AclRecord]) -> bool:
        """Every record of ``records``, in order, in one go, exactly as :meth:`replay` one by
        one would; ``False`` (nothing changed) unless that is certain. Not into a snapshot
        delta. Nothing changes before every check passed."""
        return self._may_batch() and self._replay_parts(of_records(records))

    def replay_rows(self, rows: AclRows) -> bool:
        """:meth:`replay_batch` of the ACL records of a decoded batch, in row order, as the
        columns gave them (:func:`~aclog.image.acl_batch_parts.of_rows`)."""
        return self._may_batch() and self._replay_parts(of_rows(rows))

    def _may_batch(self) -> bool:
        """False for a snapshot delta; settles the pending batches when there is no working
        copy (apply() handed it over: they are applied already, check against them all)."""
        if self._delta.restates:
            return False
        if self._pending and self._working is None:
            self.settle()
        return True

    def _replay_parts(self, parts: BatchParts | None) -> bool:
        """The checks, then the writes, of a batch whose ids are distinct (``None``: they
        are not, decline)."""
        if parts is None:
            return False  # an id twice in the batch
        batch, removals, rows = parts.changes, parts.removals, parts.rows
        fresh = set(batch)
        if len(self._delta.unchanged(fresh)) != len(fresh):
            return False  # an id this delta changed already
        bindings = dict(zip(parts.keys, parts.add_ids, strict=True))
        if len(bindings) != len(batch) - len(removals):
            return False  # a binding twice in the batch
        working = self._working_for(len(batch))
        if working is not None:
            return self._write(working, batch, fresh, removals, bindings, rows)
        if not self._stored_nowhere(fresh, set(removals), set(bindings)):
            return False
        self._delta.take(batch if rows is None else rows.changes(), bindings, removals)
        return True

    def apply(self) -> AclsImage:
        """:meth:`AclsDelta.apply`; a working copy is handed over as the next image (and the
        replayer forgets it: the image owns those dicts now)."""
        working, self._working = self._working, None
        if working is not None and (self._pending or self._delta.changes):
            return AclsImage(LayeredMap.adopt(working.acls), LayeredMap.adopt(working.index))
        self.settle()
        return self._delta.apply()

    def check(self) -> None:
        """Raise ``AssertionError`` naming the first broken invariant: the pending batches'
        ids are new to the delta and to each other, their removals are base ids and are what
        the pending removals record, and the working copy (if any) holds exactly the ACLs
        the delta (pending batches included) applies to, in order, with their bindings.

        Read-only. Cost: O(ACLs); for tests and debugging, as sortedcontainers' ``_check``."""
        seen: set[uuid.UUID] = set()
        removed: set[uuid.UUID] = set()
        base = self._delta.image.acls
        for changes, _, removals in self._pending:
            ids = set(_ordered(changes))
            _require(not ids & seen, "two pending batches change one id")
            _require(self._delta.unchanged(ids) == ids, "a pending id is in the delta's changes")
            _require(all(i in base for i in removals), "a pending removal is not a base id")
            seen |= ids
            removed |= set(removals)
        _require(removed == self._pending_removed, "the pending removals are out of date")
        if self._working is not None:
            acls, index = self._working.acls, self._working.index
            pending = [_ordered(p[0]) for p in self._pending]
            expected = _applied(base, [self._delta.changes, *pending])
            _require(list(acls.items()) == list(expected.items()), "working ACLs differ")
            keys = {acl.key: acl_id for acl_id, acl in acls.items()}
            _require(index == keys, "the working index is not the working ACLs' bindings")

    def _write(
        self,
        working: WorkingAcls,
        batch: Changes,
        fresh: set[uuid.UUID],
        removals: dict[uuid.UUID, None],
        bindings: dict[AclKey, uuid.UUID],
        rows: AclRows | None,
    ) -> bool:
        """replay_batch's end with a working copy: the batch is written there and left pending
        (as ``rows`` when they give its order).

        The batch's ids are new to the settled changes (checked by the caller). They are new
        to the pending batches too when none is an id those removed, each removal's id is in
        the base image and in the working copy, and each addition's id is not in the working
        copy: a pending addition's id was new to the base, so it can be neither removed nor
        (being in the working copy) added again; a pending removal's id can be neither added
        (checked) nor removed again (gone from the working copy). An addition's id that is in
        the base and the working copy can only fail, one by one: it exists.
        """
        removed = set(removals)
        if not fresh.isdisjoint(self._pending_removed):
            return False
        if removed and _absent(self._delta.image.acls, removed):
            return False  # not a base id: an addition of this delta, or nothing
        olds = working.removed(removals, bindings)
        if olds is None:
            return False
        if not working.write_batch(batch, len(batch) - len(removals), olds, bindings):
            self._working = None  # it holds part of the batch
            self.settle()
            return False
        self._pending.append((batch if rows is None else rows, bindings, removals))
        self._pending_removed |= removed
        return True

    def _stored_nowhere(
        self, fresh: set[uuid.UUID], removed: set[uuid.UUID], keys: set[AclKey]
    ) -> bool:
        """True when of a batch's ids ``fresh`` (all new to the delta), exactly the
        ``removed`` ones are in the image, and its additions' ``keys`` are in neither the
        image nor the delta (even a key the delta removed: left to the one-by-one replay)."""
        image = self._delta.image
        if _absent(image.acls, fresh) != (fresh - removed if removed else fresh):
            return False
        if len(_absent(image.bindings, keys)) != len(keys):
            return False
        return len(self._delta.not_added(keys)) == len(keys)

    def _working_for(self, size: int) -> WorkingAcls | None:
        """The working copy, made now if ``size`` more changes would make apply() fold."""
        base = self._delta.image.acls
        if self._working is not None or not base or not isinstance(base, LayeredMap):
            return self._working
        if base.folds(len(self._delta.changes) + size):
            current = self._delta.apply()  # no pending batch: settled when working was None
            acls = cast(LayeredMap[uuid.UUID, AccessControlEntryRecord], current.acls)
            self._working = WorkingAcls(acls.copied(), current.bindings.copied())
        return self._working


def _ordered(changes: Changes | AclRows) -> Changes:
    """A pending batch's changes in commit order."""
    return changes.changes() if isinstance(changes, AclRows) else changes


def _absent(mapping: Mapping[Any, object], keys: set[Any]) -> set[Any]:
    """The keys of ``keys`` that ``mapping`` does not hold, reusing the set's stored hashes
    where the map allows (see :meth:`LayeredMap.absent`)."""
    if isinstance(mapping, LayeredMap):
        return mapping.absent(keys)
    return {key for key in keys if key not in mapping}


def _applied(
    base: Mapping[uuid.UUID, AccessControlEntryRecord], layers: list[Mapping[uuid.UUID, Any]]
) -> dict[uuid.UUID, AccessControlEntryRecord]:
    """``base`` with each layer of changes replayed in order, the slow and obvious way."""
    acls = dict(base.items())
    for changes in layers:
        for acl_id, change in changes.items():
            acls.pop(acl_id, None)
            if change is not None:
                acls[acl_id] = change
    return acls


def _require(holds: bool, broken: str) -> None:
    if not holds:
        raise AssertionError(f"AclBatchReplayer invariant broken: {broken}")
