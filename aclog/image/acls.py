"""The ACLs in a metadata image, and the changes a batch of records makes to them.

:class:`AclsImage` is the committed state; :class:`AclsDelta` collects the changes of one or more
batches on top of an image and turns them into the next image. Changes keep commit order, because
a publisher must apply a DENY and a later ALLOW in the order they were made.

Replay is strict (``reference/style-anchors.md`` §5.3 rule 4): adding an id or an ACL that is
already present, or removing an id that is not, raises :class:`ReplayError` naming the offset.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from itertools import compress, repeat
from operator import attrgetter, is_, not_
from types import MappingProxyType
from typing import Any, ClassVar, cast

from aclog.image.errors import ReplayError
from aclog.image.layered import LayeredMap, missing_from
from aclog.image.render import acl_to_dict
from aclog.image.working import WorkingAcls
from aclog.records.types import (
    AccessControlEntryRecord,
    AclBinding,
    AclKey,
    RemoveAccessControlEntryRecord,
    acl_key,
    acl_keys,
    kafka_uuid_text,
)

AclRecord = AccessControlEntryRecord | RemoveAccessControlEntryRecord
_id_of = attrgetter("id")

AclChanges = Mapping[uuid.UUID, AccessControlEntryRecord | None]
"""Ordered changes by ACL id: a record is an addition, ``None`` a removal."""


@dataclass(frozen=True)
class AclsImage:
    """Represents the ACLs in the metadata image, by id, in commit order.

    Immutable; thread-safe. ``acls`` is a read-only view. Two images are equal when they hold the
    same ACLs under the same ids. :meth:`id_of` builds its index on first use, O(n) once per image.
    """

    acls: Mapping[uuid.UUID, AccessControlEntryRecord] = field(default_factory=dict)

    EMPTY: ClassVar[AclsImage]

    def __post_init__(self) -> None:
        if not isinstance(self.acls, LayeredMap):
            object.__setattr__(self, "acls", LayeredMap(self.acls))

    def __len__(self) -> int:
        return len(self.acls)

    def __iter__(self) -> Iterator[AccessControlEntryRecord]:
        return iter(self.acls.values())

    @cached_property
    def _ids_by_binding(self) -> LayeredMap[AclKey, uuid.UUID]:
        return LayeredMap.adopt({acl.key: acl_id for acl_id, acl in self.acls.items()})

    def id_of(self, binding: AclBinding) -> uuid.UUID | None:
        """The id of the stored ACL identical to ``binding`` (all seven fields), if any. O(1)."""
        return self._ids_by_binding.get(binding.key)

    def id_of_key(self, key: AclKey) -> uuid.UUID | None:
        """Like :meth:`id_of`, for an :attr:`AccessControlEntryRecord.key`."""
        return self._ids_by_binding.get(key)

    def to_dict(self) -> list[dict[str, str]]:
        """Every ACL as :func:`aclog.image.render.acl_to_dict`, in commit order."""
        return [acl_to_dict(acl) for acl in self.acls.values()]


AclsImage.EMPTY = AclsImage()


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
        self._added: dict[AclKey, uuid.UUID] = {}
        # The base image's ids this delta removed (a removed id re-added stays here), so that
        # apply() touches only those by id; None in a snapshot delta, which may replace any.
        self._touched: dict[uuid.UUID, None] | None = None if snapshot else {}
        # A big delta's current state, written batch by batch (see aclog.image.working).
        self._working: WorkingAcls | None = None
        # Batches written to the working state only: (batch, bindings, removals) each, not yet
        # in _changes, _added and _touched, which a replay into a working state seldom reads
        # (a catch-up never does): _settle() adds them when something does.
        self._pending: list[_Pending] = []
        self._pending_removed: set[uuid.UUID] = set()  # the ids the pending batches removed

    @property
    def image(self) -> AclsImage:
        """The image these changes apply to."""
        return self._image

    @property
    def changes(self) -> AclChanges:
        """The changes in commit order. A record whose id the base image has replaces it."""
        self._settle()
        return MappingProxyType(self._changes)

    def _settle(self) -> None:
        """Add the pending batches to the delta's bookkeeping, in order, as replay_batch once
        added each of them at once."""
        pending, self._pending = self._pending, []
        self._pending_removed = set()
        for batch, bindings, removals in pending:
            self._changes.update(batch)
            self._added.update(bindings)
            self._touched.update(removals)  # type: ignore[union-attr]  # None only in snapshots

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
        if self._pending:
            self._settle()
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
        if self._working is not None:
            self._working.add(record, key)

    def restate(self, records: list[AccessControlEntryRecord]) -> bool:
        """:meth:`replay_add` of every record of a snapshot, in one go, into a snapshot delta
        with no changes yet; ``False`` (and nothing changed) when they cannot all apply, so
        the caller replays them one by one to name the record that fails.

        Cost: one id hash and one key per record, in two dict builds (no per-record calls).
        """
        if not self._snapshot or self._changes or self._added:
            return False
        changes: dict[uuid.UUID, AccessControlEntryRecord | None] = {r.id: r for r in records}
        if len(changes) != len(records):
            return False  # an id stated twice
        added = dict(zip(map(acl_key, records), changes, strict=True))
        if len(added) != len(records):
            return False  # an ACL stated twice, under two ids
        self._changes, self._added = changes, added
        return True

    def replay_batch(self, records: Sequence[AclRecord]) -> bool:
        """:meth:`replay` of every record of ``records``, in order, in one go; ``False`` (and
        nothing changed) unless that certainly applies exactly as replaying them one by one
        would, so the caller replays them one by one, which raises the error naming the offset.

        It goes in one go when every id of the batch is new to this delta, each addition's id
        and binding are stored nowhere yet, and each removal's id is in the base image: what a
        controller writes. Anything else (an id twice, a re-added binding, an error) is left to
        the one-by-one replay. Not in a snapshot delta.

        Cost: each id is hashed once (``UUID.__hash__`` runs in Python) and each binding key
        once, into the batch's own dicts; every check after that is a set difference in C that
        reuses those hashes (see :meth:`LayeredMap.absent`), and the batch joins the delta by
        ``dict.update``, which reuses them too. Nothing changes before every check passed.
        With a working state (a big delta), the batch is written there and its bookkeeping
        waits until something reads it (see ``_settle``): a catch-up never does.
        """
        if self._touched is None:
            return False
        if self._pending and self._working is None:
            self._settle()  # applied already (apply drops the working state): check them all
        ids = list(map(_id_of, records))
        # Each id's record, then None for the removals' (update keeps the order and reuses
        # the removals' stored hashes).
        batch: dict[uuid.UUID, Any] = dict(zip(ids, records, strict=True))
        if len(batch) != len(ids):
            return False  # an id twice in the batch
        adding = list(map(is_, map(type, records), repeat(AccessControlEntryRecord)))
        adds: list[AccessControlEntryRecord] = list(compress(records, adding))  # type: ignore[arg-type]
        removals = dict.fromkeys(compress(ids, map(not_, adding))) if len(adds) < len(ids) else {}
        batch.update(removals)
        fresh = set(batch)
        if self._changes and len(missing_from(fresh, self._changes)) != len(fresh):
            return False  # an id this delta changed already
        bindings = dict(zip(acl_keys(adds), compress(ids, adding), strict=True))
        if len(bindings) != len(adds):
            return False  # a binding twice in the batch
        working = self._working_for(len(batch))
        if working is not None:
            return self._write_batch(working, batch, fresh, removals, bindings)
        if not self._stored_nowhere(fresh, set(removals), set(bindings)):
            return False
        self._changes.update(batch)
        self._added.update(bindings)
        self._touched.update(removals)  # in commit order, as apply() best walks them
        return True

    def _write_batch(
        self,
        working: WorkingAcls,
        batch: dict[uuid.UUID, AccessControlEntryRecord | None],
        fresh: set[uuid.UUID],
        removals: dict[uuid.UUID, None],
        bindings: dict[AclKey, uuid.UUID],
    ) -> bool:
        """replay_batch's end for a delta with a working state: the batch is written there
        and left pending (see _settle).

        The batch's ids are new to the settled changes (checked by the caller). They are new
        to the pending batches too when none is an id those removed, each removal's id is in
        the base image and in the working state, and each addition's id is not in the working
        state: a pending addition's id was new to the base, so it can be neither removed nor
        (being in the working state) added again; a pending removal's id can be neither added
        (checked) nor removed again (gone from the working state). An addition's id that is in
        the base and the working state can only fail, one by one: it exists.
        """
        removed = set(removals)
        if not fresh.isdisjoint(self._pending_removed):
            return False
        if removed and _absent(self._image.acls, removed):
            return False  # not a base id: an addition of this delta, or nothing
        olds = working.removed(removals, bindings)
        if olds is None:
            return False
        additions = len(batch) - len(removals)
        if not working.write_batch(batch, additions, olds, bindings):
            self._working = None  # it holds part of the batch
            self._settle()
            return False
        self._pending.append((batch, bindings, removals))
        self._pending_removed |= removed
        return True

    def _stored_nowhere(
        self, fresh: set[uuid.UUID], removed: set[uuid.UUID], keys: set[AclKey]
    ) -> bool:
        """True when of a batch's ids ``fresh`` (all new to this delta), exactly the
        ``removed`` ones are in the image, and its additions' ``keys`` are in neither the
        image nor this delta (even a key this delta removed: left to the one-by-one replay)."""
        if _absent(self._image.acls, fresh) != (fresh - removed if removed else fresh):
            return False
        if len(_absent(self._image._ids_by_binding, keys)) != len(keys):
            return False
        return not self._added or len(missing_from(keys, self._added)) == len(keys)

    def _working_for(self, size: int) -> WorkingAcls | None:
        """The working state, made now if ``size`` more changes would make apply() fold."""
        base = self._image.acls
        if self._working is not None or not base or not isinstance(base, LayeredMap):
            return self._working
        if base.folds(len(self._changes) + size):
            current = self._next_image()
            acls = cast(LayeredMap[uuid.UUID, AccessControlEntryRecord], current.acls)
            self._working = WorkingAcls(acls.copied(), current._ids_by_binding.copied())
        return self._working

    def replay_remove(self, record: RemoveAccessControlEntryRecord, offset: int) -> None:
        """Remove the ACL; it must exist in the image or have been added by this delta."""
        if self._pending:
            self._settle()
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
            self._set(acl_id, None)
            if self._touched is not None:
                self._touched[acl_id] = None
        else:
            del self._changes[acl_id]  # added and removed within this delta: nothing changed
        if self._working is not None:
            self._working.remove(acl_id)

    def finish_snapshot(self) -> None:
        """Mark every ACL of the base image that was not replayed since as removed."""
        for acl_id in self._image.acls:
            if acl_id not in self._changes:
                self._changes[acl_id] = None
        self._snapshot = False
        self._touched = None

    def apply(self) -> AclsImage:
        """The image with every change applied; base order kept, additions appended.

        Cost: O(changes) plus the base map's overlay (see :class:`LayeredMap`), not O(ACLs).
        """
        if self._snapshot:
            self.finish_snapshot()
        working, self._working = self._working, None
        if working is not None and (self._changes or self._pending):  # hand the state over
            image = AclsImage(LayeredMap.adopt(working.acls))
            image.__dict__["_ids_by_binding"] = LayeredMap.adopt(working.index)
            return image
        return self._next_image()

    def _next_image(self) -> AclsImage:
        """The image with every change so far applied (no side effect on this delta but
        settling its pending batches)."""
        self._settle()
        if not self._changes:
            return self._image
        base = self._image.acls
        if base:
            acls = cast(LayeredMap[uuid.UUID, AccessControlEntryRecord], base)
            if self._touched is None:
                image = AclsImage(acls.updated(self._changes.items()))
            else:
                image = AclsImage(acls.merged(self._changes, self._touched.keys()))
        else:
            # A first image (a snapshot's, a log's from the start): nothing to replace, and no
            # removal either (one of an id added here deletes the change). dict(dict) copies
            # the stored hashes instead of calling UUID.__hash__ per id.
            first = cast(dict[uuid.UUID, AccessControlEntryRecord], dict(self._changes))
            image = AclsImage(LayeredMap.adopt(first))
        self._carry_index(image)
        return image

    def _carry_index(self, image: AclsImage) -> None:
        """Give ``image`` its binding index by updating the base image's, if that was built
        (an empty image needs none): O(changes), where rebuilding costs one key per ACL.

        ``_added`` holds exactly the keys this delta added that are still present.
        """
        base = self._image.__dict__.get("_ids_by_binding")
        if base is None and self._image.acls:
            return
        index: LayeredMap[AclKey, uuid.UUID] = LayeredMap() if base is None else base
        removed: list[AclKey] = []  # the stored keys of the ACLs this delta removes or replaces
        if self._image.acls:
            stored = self._image.acls
            ids = self._changes if self._touched is None else self._touched
            for acl_id in ids:  # each once: the index maps a key to one id
                old = stored.get(acl_id)
                if old is not None:
                    key = acl_key(old)
                    if index.get(key) == acl_id:
                        removed.append(key)
        # An added key is new to the index or among the removed ones (replay checked that).
        image.__dict__["_ids_by_binding"] = index.merged(self._added, removed)

    def _set(self, acl_id: uuid.UUID, change: AccessControlEntryRecord | None) -> None:
        # Re-inserting moves the id to the end, so the changes stay in commit order.
        self._changes.pop(acl_id, None)
        self._changes[acl_id] = change
        if change is not None:
            self._added[change.key] = acl_id

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


_Pending = tuple[
    dict[uuid.UUID, AccessControlEntryRecord | None], dict[AclKey, uuid.UUID], dict[uuid.UUID, None]
]
"""A batch written to a working state only: its changes, added bindings and removed ids."""

_ABSENT = object()
"""Stands for "no change recorded" in lookups where ``None`` means a removal."""


def _absent(mapping: Mapping[Any, object], keys: set[Any]) -> set[Any]:
    """The keys of ``keys`` that ``mapping`` does not hold, reusing the set's stored hashes
    where the map allows (see :meth:`LayeredMap.absent`)."""
    if isinstance(mapping, LayeredMap):
        return mapping.absent(keys)
    return {key for key in keys if key not in mapping}


def _text(acl_id: uuid.UUID | None) -> str:
    return "?" if acl_id is None else kafka_uuid_text(acl_id)
