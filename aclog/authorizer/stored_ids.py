"""The writer's side of the authorizer: its view of the stored ids, and checking a batch
against it.

The writer keeps its own view of the stored ACLs, keyed by ``UUID.int`` (hashing a ``UUID`` is a
Python-level call; its ``int`` hashes in C): :class:`StoredIds`. A load from records builds it
whole; a load from an image keeps the image as its base and only the changes since in a small
overlay, so neither the load nor the first change pays O(ACLs) (on a table-backed image a
batch's ids are looked up in the base with one vectorised search,
:func:`~aclog.image.acl_reads.stored_records`).

Not thread-safe: only the one writer thread calls these. Costs are O(batch), plus O(ACLs) once
if the overlay outgrows its base (see :class:`StoredIds`).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping, Sequence

from aclog.authorizer.results import UnknownAclError
from aclog.image.acl_reads import stored_records
from aclog.image.acls_image import AclsImage
from aclog.records.types import AccessControlEntryRecord, kafka_uuid_text

ById = dict[int, AccessControlEntryRecord]
Found = dict[int, AccessControlEntryRecord]
"""Stored records by ``UUID.int``: at least those among some asked ids (an asked id not
stored is absent)."""


class StoredIds:
    """Represents the writer's view of the stored ACLs by ``UUID.int``: a base image (none
    after a load from records) and the changes since over it, ``added`` (ids stored since, by
    ``UUID.int``) and ``gone`` (ids of the base removed since; one re-added is in both, and
    ``added`` wins). An id is stored when ``added`` has it, or the base has it and ``gone``
    does not.

    When the overlay grows past its base's size, the view is made one dict and the base
    dropped (O(ACLs) once, after at least as many changes: O(1) per change amortised); until
    then the base is read only for a batch's own ids.

    Not thread-safe: only the writer thread uses it. Every method is O(batch) (a search of
    the base for the batch's ids), plus that rare materialisation.
    """

    __slots__ = ("_added", "_base", "_gone")

    def __init__(self, held: ById | AclsImage) -> None:
        if isinstance(held, AclsImage):
            self._base: AclsImage | None = held
            self._added: ById = {}
        else:
            self._base, self._added = None, held
        self._gone: set[int] = set()

    def found(self, acl_ids: Sequence[uuid.UUID]) -> Found:
        """The stored records among ``acl_ids``, by ``UUID.int``. Cost: a probe per id of the
        overlay, and one search of the base for the ids the overlay does not decide."""
        added, gone = self._added, self._gone
        hits = {key: added[key] for key in (acl_id.int for acl_id in acl_ids) if key in added}
        if self._base is None:
            return hits
        asked = [i for i in dict.fromkeys(acl_ids) if i.int not in hits and i.int not in gone]
        if asked:
            for record in stored_records(self._base, asked):
                if record is not None:
                    hits[record.id.int] = record
        return hits

    def checked(
        self, adds: list[AccessControlEntryRecord], removes: list[uuid.UUID]
    ) -> list[AccessControlEntryRecord]:
        """The stored records a batch removes, once the batch is checked (see
        :func:`checked_removes` and :func:`check_adds`). Changes no stored id."""
        # With no base the view itself answers (no copy: the hot path after a load of records).
        stored = (
            self._added if self._base is None else self.found([*removes, *(a.id for a in adds)])
        )
        removed = checked_removes(stored, removes)
        check_adds(stored, adds, removes)
        return removed

    def record(
        self, adds: list[AccessControlEntryRecord], removed: list[AccessControlEntryRecord]
    ) -> None:
        """Take a checked batch into the view: ``removed`` go, then ``adds`` come."""
        added, gone, base = self._added, self._gone, self._base
        for acl in removed:
            added.pop(acl.id.int, None)  # absent for an id only the base holds
            if base is not None:
                gone.add(acl.id.int)
        for acl in adds:
            added[acl.id.int] = acl
        if base is not None and len(added) + len(gone) > len(base):
            self._materialise(base)

    def batch(
        self, changes: Mapping[uuid.UUID, AccessControlEntryRecord | None]
    ) -> tuple[list[AccessControlEntryRecord], list[uuid.UUID]]:
        """An image delta's ordered changes (a record adds or replaces its id, ``None`` removes
        it) as a batch: (adds, removes)."""
        stored = (
            self._added
            if self._base is None
            else self.found([acl_id for acl_id, acl in changes.items() if acl is not None])
        )
        removes = [acl_id for acl_id, acl in changes.items() if acl is None or acl_id.int in stored]
        adds = [acl for acl in changes.values() if acl is not None]
        return adds, removes

    def _materialise(self, base: AclsImage) -> None:
        """Make the view one dict of the stored ACLs: the base's that are not gone, then the
        added ones. O(ACLs)."""
        gone = self._gone
        view = {key: acl for key, acl in by_id_from(base.acls).items() if key not in gone}
        view.update(self._added)
        self._base, self._added, self._gone = None, view, set()


def by_id_of(acls: list[AccessControlEntryRecord] | tuple[AccessControlEntryRecord, ...]) -> ById:
    """``acls`` by ``UUID.int``; ``ValueError`` naming the first id that appears twice."""
    by_id = {acl.id.int: acl for acl in acls}
    if len(by_id) != len(acls):
        seen: set[int] = set()
        for acl in acls:
            if acl.id.int in seen:
                raise ValueError(f"ACL id {kafka_uuid_text(acl.id)} appears twice in the load")
            seen.add(acl.id.int)
    return by_id


def by_id_from(acls: Mapping[uuid.UUID, AccessControlEntryRecord]) -> ById:
    """An image's ACLs (by id, so no id repeats) by ``UUID.int``. O(ACLs)."""
    return {acl_id.int: acl for acl_id, acl in acls.items()}


def checked_removes(stored: Found, removes: list[uuid.UUID]) -> list[AccessControlEntryRecord]:
    """The stored records ``removes`` names (``stored``: the stored records among them, at
    least). ``ValueError`` for an id named twice, :class:`UnknownAclError` for an id not
    stored."""
    if not removes:
        return []
    if len(set(removes)) != len(removes):
        raise ValueError("a batch names the same ACL id twice in its removals")
    missing = [acl_id for acl_id in removes if acl_id.int not in stored]
    if missing:
        raise UnknownAclError(
            f"cannot remove ACL id {kafka_uuid_text(missing[0])}: no stored ACL has it; "
            "list the stored ACLs to find the right id"
        )
    return [stored[acl_id.int] for acl_id in removes]


def check_adds(
    stored: Found, adds: Iterable[AccessControlEntryRecord], freed: Iterable[uuid.UUID]
) -> None:
    """``ValueError`` if an id of ``adds`` repeats, or is stored (``stored``: the stored records
    among them, at least) and not in ``freed``."""
    seen: set[int] = set()
    free = {acl_id.int for acl_id in freed}
    for acl in adds:
        key = acl.id.int
        if key in seen or (key in stored and key not in free):
            raise ValueError(
                f"ACL id {kafka_uuid_text(acl.id)} is already stored; remove it first "
                "or give the new ACL a fresh id"
            )
        seen.add(key)
