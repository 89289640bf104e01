"""The changes a batch of records makes to the ACLs of a metadata image.

The committed state is :class:`~aclog.image.acls_image.AclsImage`; :class:`AclsDelta` collects
the changes of one or more batches on top of an image and turns them into the next image, in
Kafka's shape: replay an addition or a removal, finish a snapshot, apply. Changes keep commit
order, because a publisher must apply a DENY and a later ALLOW in the order they were made.

Replay is strict (``reference/style-anchors.md`` §5.3 rule 4): adding an id or an ACL that is
already present, or removing an id that is not, raises :class:`ReplayError` naming the offset.
Whole batches go in faster onto a table (:mod:`aclog.image.acl_table_replay`), which applies
exactly as this one-by-one replay would, or declines.

:meth:`AclsDelta.apply` over a table-backed image (or ``EMPTY``) gives the next table; over an
image held in a mapping, the next mapping (see :mod:`aclog.image.acls_image`).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from types import MappingProxyType
from typing import cast

from aclog.image.acls_image import AclChanges, AclsImage, BindingIndex
from aclog.image.errors import ReplayError
from aclog.image.layered import LayeredMap
from aclog.records.types import (
    AccessControlEntryRecord,
    AclKey,
    RemoveAccessControlEntryRecord,
    acl_key,
    acl_keys,
    kafka_uuid_text,
)


class AclsDelta:
    """Represents changes to the ACLs of an image.

    Not thread-safe; owned by the task that replays records. With ``snapshot=True`` the records
    restate a whole image: an id of the base image may be replayed once more (the snapshot's
    record replaces the base one), and :meth:`apply` first calls :meth:`finish_snapshot`.
    """

    def __init__(self, image: AclsImage, *, snapshot: bool = False) -> None:
        self._image = image
        self._snapshot = snapshot
        self._changes: dict[uuid.UUID, AccessControlEntryRecord | None] = {}
        # The keys this delta added that are still present, and the id of each.
        self._added: dict[AclKey, uuid.UUID] = {}
        # The base image's ids this delta removed (a removed id re-added stays here), so that
        # apply() touches only those by id; None in a snapshot delta, which may replace any.
        self._touched: dict[uuid.UUID, None] | None = None if snapshot else {}

    @property
    def image(self) -> AclsImage:
        """The image these changes apply to."""
        return self._image

    @property
    def changes(self) -> AclChanges:
        """The changes in commit order. A record whose id the base image has replaces it."""
        return MappingProxyType(self._changes)

    @property
    def restates(self) -> bool:
        """True for a snapshot delta, finished or not: any id of the base may be replaced."""
        return self._touched is None

    @property
    def snapshot(self) -> bool:
        """True until :meth:`finish_snapshot` for a delta made with ``snapshot=True``."""
        return self._snapshot

    def replay(
        self, record: AccessControlEntryRecord | RemoveAccessControlEntryRecord, offset: int
    ) -> None:
        """Apply one ACL record; raise :class:`ReplayError` if it cannot apply."""
        if isinstance(record, AccessControlEntryRecord):
            self.replay_add(record, offset)
        else:
            self.replay_remove(record, offset)

    def replay_add(self, record: AccessControlEntryRecord, offset: int) -> None:
        """Add the ACL; its id and its binding must both be new."""
        # The hot path of replay: UUID hashing runs in Python (UUID.__hash__), so each id is
        # looked up as few times as possible, and the key is computed once.
        acl_id, key = record.id, acl_key(record)
        changes = self._changes
        current = changes.get(acl_id, _ABSENT)
        if current is _ABSENT:
            if not self._snapshot and acl_id in self._image.acls:
                raise ReplayError(f"ACL id {_text(acl_id)} already exists", offset)
        elif current is not None:
            raise ReplayError(f"ACL id {_text(acl_id)} already exists", offset)
        duplicate = self._id_of(key)
        if duplicate is not None:
            raise ReplayError(
                f"ACL {_text(acl_id)} duplicates the stored ACL {_text(duplicate)}", offset
            )
        if current is not _ABSENT:
            del changes[acl_id]  # re-inserting moves the id to the end: commit order
        changes[acl_id] = record
        self._added[key] = acl_id

    def replay_remove(self, record: RemoveAccessControlEntryRecord, offset: int) -> None:
        """Remove the ACL; it must exist in the image or have been added by this delta."""
        acl_id = record.id
        if not self._present(acl_id):
            raise ReplayError(
                f"cannot remove ACL id {_text(acl_id)}: it is in neither the image nor the delta",
                offset,
            )
        current = self._changes.get(acl_id)
        if current is not None:
            self._added.pop(acl_key(current), None)
        if acl_id in self._image.acls:
            self._changes.pop(acl_id, None)  # re-inserting keeps the changes in commit order
            self._changes[acl_id] = None
            if self._touched is not None:
                self._touched[acl_id] = None
        else:
            del self._changes[acl_id]  # added and removed within this delta: nothing changed

    def finish_snapshot(self) -> None:
        """Mark every ACL of the base image that was not replayed since as removed."""
        for acl_id in self._image.acls:
            if acl_id not in self._changes:
                self._changes[acl_id] = None
        self._snapshot = False
        self._touched = None

    def apply(self) -> AclsImage:
        """The image with every change applied; base order kept, additions appended. Changes
        nothing but a snapshot delta's state (it finishes the snapshot first).

        Over a table-backed image (or :attr:`AclsImage.EMPTY`) the next image is
        table-backed (:func:`~aclog.image.acl_table_next.next_table`); over a mapping, the
        base map's overlay is updated (see :class:`LayeredMap`). Cost: O(changes), not
        O(ACLs), but for a snapshot delta over a non-empty image.
        """
        if self._snapshot:
            self.finish_snapshot()
        if not self._changes:
            return self._image
        base = self._image.acls
        if self._image.replays_onto_a_table:
            from aclog.image.acl_table_next import next_table  # noqa: PLC0415  # numpy

            touched = None if self._touched is None else list(self._touched)
            return AclsImage.of_table(next_table(self._image.table, self._changes, touched))
        if base:
            acls = cast(LayeredMap[uuid.UUID, AccessControlEntryRecord], base)
            if self._touched is None:
                applied = acls.updated(self._changes.items())
            else:
                applied = acls.merged(self._changes, self._touched.keys())
        else:
            # A first image: nothing to replace, and no removal either (one of an id added
            # here deletes the change). dict(dict) copies the stored hashes instead of
            # calling UUID.__hash__ per id.
            first = cast(dict[uuid.UUID, AccessControlEntryRecord], dict(self._changes))
            applied = LayeredMap.adopt(first)
        return self._image.grown(applied, self._carried_index())

    def replay_batch(
        self, records: Sequence[AccessControlEntryRecord | RemoveAccessControlEntryRecord]
    ) -> bool:
        """Every record of ``records`` in one go, over an image held in a mapping, exactly as
        :meth:`replay` one by one would; ``False`` (nothing changed) unless that is certain:
        it takes what a controller writes (ids distinct and new to this delta, additions'
        ids and bindings stored nowhere, removals' ids stored in the base) and declines
        the rest, which the caller replays one by one. Not into a snapshot delta.
        Cost: each id and key hashed about once, the checks set differences in C."""
        acls, bindings = self._image.acls, self._image.bindings
        if self._touched is None or not isinstance(acls, LayeredMap):
            return False
        ids = [record.id for record in records]
        fresh = set(ids)
        adds = [r for r in records if type(r) is AccessControlEntryRecord]
        removed = {r.id for r in records if type(r) is not AccessControlEntryRecord}
        keys = set(acl_keys(adds))
        if len(fresh) != len(ids) or len(keys) != len(adds) or not fresh.isdisjoint(self._changes):
            return False  # an id or a binding twice, or an id this delta changed already
        if acls.absent(fresh) != fresh - removed or not keys.isdisjoint(self._added):
            return False  # an addition's id stored, a removal's not, or a binding added here
        if len(bindings.absent(keys)) != len(keys):
            return False  # a binding stored (even one this batch removes: one by one decides)
        self.take_replayed(records)
        return True

    def take_replayed(
        self, records: Iterable[AccessControlEntryRecord | RemoveAccessControlEntryRecord]
    ) -> None:
        """Record ``records``, whose one-by-one :meth:`replay` into this delta is known to
        succeed (a table applied them), exactly as that replay would, without looking
        anything up in the image: an id this delta has no change for is stored (or, for an
        addition, new); one it removed was a base id; one it added and still holds is a base
        id when the delta removed it before (``_touched``). Not for a snapshot delta's
        removals. Cost: a few dict operations per record (``UUID.__hash__`` runs in Python)."""
        changes, added, touched = self._changes, self._added, self._touched
        for record in records:
            acl_id = record.id
            if type(record) is AccessControlEntryRecord:
                changes.pop(acl_id, None)
                changes[acl_id] = record
                added[acl_key(record)] = acl_id
                continue
            current = changes.pop(acl_id, _ABSENT)
            if current is not _ABSENT and current is not None:
                added.pop(acl_key(current), None)  # type: ignore[arg-type]
                if touched is None or acl_id not in touched:
                    continue  # added and removed within this delta: nothing changed
            changes[acl_id] = None
            if touched is not None:
                touched[acl_id] = None

    # -- helpers -------------------------------------------------------------------------------

    def _carried_index(self) -> BindingIndex | None:
        """The applied image's binding index, made by updating the base image's if that was
        built (an empty image needs none): O(changes), where rebuilding costs one key per ACL.
        ``None`` when the base's was never built (the next image builds its own if asked).

        ``_added`` holds exactly the keys this delta added that are still present.
        """
        stored = self._image.acls
        base = self._image.built_bindings()
        if base is None and stored:
            return None
        index: BindingIndex = LayeredMap() if base is None else base
        removed: list[AclKey] = []  # the stored keys of the ACLs this delta removes or replaces
        if stored:
            ids = self._changes if self._touched is None else self._touched
            for acl_id in ids:  # each once: the index maps a key to one id
                old = stored.get(acl_id)
                if old is not None:
                    key = acl_key(old)
                    if index.get(key) == acl_id:
                        removed.append(key)
        # An added key is new to the index or among the removed ones (replay checked that).
        return index.merged(self._added, removed)

    def _present(self, acl_id: uuid.UUID) -> bool:
        if acl_id in self._changes:
            return self._changes[acl_id] is not None
        return acl_id in self._image.acls and not self._snapshot

    def _id_of(self, key: AclKey) -> uuid.UUID | None:
        added = self._added.get(key)
        if added is not None:
            return added
        if self._snapshot:
            return None  # a stored ACL is about to be replaced by the snapshot's
        stored = self._image.id_of_key(key)
        if stored is None or stored in self._changes:
            return None  # removed by this delta, or about to be replaced by the snapshot
        return stored


_ABSENT = object()
"""Stands for "no change recorded" in lookups where ``None`` means a removal."""


def _text(acl_id: uuid.UUID | None) -> str:
    return "?" if acl_id is None else kafka_uuid_text(acl_id)
