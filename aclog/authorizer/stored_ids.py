"""The writer's side of the authorizer: its view of the stored ids, and checking a batch
against it.

The writer keeps its own view of the stored ACLs, keyed by ``UUID.int`` (hashing a ``UUID`` is a
Python-level call; its ``int`` hashes in C): :class:`StoredIds`, built when the authorizer loads
records, or made from the loaded image by the first change.

Not thread-safe: only the one writer thread calls these. Costs are O(batch), plus O(ACLs) once
for the first change after a load from an image.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping

from aclog.authorizer.results import UnknownAclError
from aclog.image.acls import AclsImage
from aclog.records.types import AccessControlEntryRecord, kafka_uuid_text

ById = dict[int, AccessControlEntryRecord]


class StoredIds:
    """Represents the writer's view of the stored ACLs by ``UUID.int``: the view itself, or the
    image it is made from on first use (so a load from an image, whose ids are distinct, is ready
    sooner, and the first change pays O(ACLs) once).

    Not thread-safe: only the writer thread uses it. Every method is O(batch), plus that one
    O(ACLs) build.
    """

    __slots__ = ("_held",)

    def __init__(self, held: ById | AclsImage) -> None:
        self._held = held

    def view(self) -> ById:
        """The stored ACLs by ``UUID.int``; the writer changes it through :meth:`record`."""
        held = self._held
        if isinstance(held, AclsImage):
            held = self._held = by_id_from(held.acls)
        return held

    def checked(
        self, adds: list[AccessControlEntryRecord], removes: list[uuid.UUID]
    ) -> list[AccessControlEntryRecord]:
        """The stored records a batch removes, once the batch is checked (see
        :func:`checked_removes` and :func:`check_adds`). Changes no stored id."""
        by_id = self.view()
        removed = checked_removes(by_id, removes)
        check_adds(by_id, adds, removes)
        return removed

    def record(
        self, adds: list[AccessControlEntryRecord], removed: list[AccessControlEntryRecord]
    ) -> None:
        """Take a checked batch into the view: ``removed`` go, then ``adds`` come."""
        by_id = self.view()
        for acl in removed:
            del by_id[acl.id.int]
        for acl in adds:
            by_id[acl.id.int] = acl

    def batch(
        self, changes: Mapping[uuid.UUID, AccessControlEntryRecord | None]
    ) -> tuple[list[AccessControlEntryRecord], list[uuid.UUID]]:
        """An image delta's ordered changes (a record adds or replaces its id, ``None`` removes
        it) as a batch: (adds, removes)."""
        by_id = self.view()
        removes = [acl_id for acl_id, acl in changes.items() if acl is None or acl_id.int in by_id]
        adds = [acl for acl in changes.values() if acl is not None]
        return adds, removes


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


def checked_removes(by_id: ById, removes: list[uuid.UUID]) -> list[AccessControlEntryRecord]:
    """The stored records ``removes`` names. ``ValueError`` for an id named twice,
    :class:`UnknownAclError` for an id not stored."""
    if not removes:
        return []
    if len(set(removes)) != len(removes):
        raise ValueError("a batch names the same ACL id twice in its removals")
    missing = [acl_id for acl_id in removes if acl_id.int not in by_id]
    if missing:
        raise UnknownAclError(
            f"cannot remove ACL id {kafka_uuid_text(missing[0])}: no stored ACL has it; "
            "list the stored ACLs to find the right id"
        )
    return [by_id[acl_id.int] for acl_id in removes]


def check_adds(
    by_id: ById, adds: Iterable[AccessControlEntryRecord], freed: Iterable[uuid.UUID]
) -> None:
    """``ValueError`` if an id of ``adds`` repeats, or is stored and not in ``freed``."""
    seen: set[int] = set()
    free = {acl_id.int for acl_id in freed}
    for acl in adds:
        key = acl.id.int
        if key in seen or (key in by_id and key not in free):
            raise ValueError(
                f"ACL id {kafka_uuid_text(acl.id)} is already stored; remove it first "
                "or give the new ACL a fresh id"
            )
        seen.add(key)
