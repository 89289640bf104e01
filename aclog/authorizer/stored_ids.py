"""The writer's side of the authorizer: checking a batch against the stored ids.

The writer keeps its own view of the stored ACLs, keyed by ``UUID.int`` (hashing a ``UUID`` is a
Python-level call; its ``int`` hashes in C).

Not thread-safe: only the one writer thread calls these. Costs are O(batch).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping

from aclog.authorizer.results import UnknownAclError
from aclog.records.types import AccessControlEntryRecord, kafka_uuid_text

ById = dict[int, AccessControlEntryRecord]


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
