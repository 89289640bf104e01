"""The writer's side of the authorizer: checking a batch against the stored ids.

The writer keeps its own view of the stored ACLs, keyed by id like the metadata image's ACLs, so
that a load from an image copies the image's dict (C speed, reusing the stored hashes) instead
of hashing a million ids again. Hashing a ``UUID`` is a Python-level call, so a batch hashes each
of its ids as few times as it can.

Not thread-safe: only the one writer thread calls these. Costs are O(batch), except the loads.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping

from aclog.authorizer.results import UnknownAclError
from aclog.image.layered import LayeredMap
from aclog.records.types import AccessControlEntryRecord, kafka_uuid_text

ById = dict[uuid.UUID, AccessControlEntryRecord]


def by_id_of(acls: list[AccessControlEntryRecord] | tuple[AccessControlEntryRecord, ...]) -> ById:
    """``acls`` by id; ``ValueError`` naming the first id that appears twice. O(ACLs), one
    ``UUID.__hash__`` call each."""
    by_id = {acl.id: acl for acl in acls}
    if len(by_id) != len(acls):
        seen: set[uuid.UUID] = set()
        for acl in acls:
            if acl.id in seen:
                raise ValueError(f"ACL id {kafka_uuid_text(acl.id)} appears twice in the load")
            seen.add(acl.id)
    return by_id


def by_id_copied(acls: Mapping[uuid.UUID, AccessControlEntryRecord]) -> ById:
    """A copy of ``acls`` (an image's ACLs by id, so no id repeats). O(ACLs) at C speed for a
    :class:`~aclog.image.layered.LayeredMap` or a dict: the stored hashes are reused."""
    return acls.copied() if isinstance(acls, LayeredMap) else dict(acls)


def checked_removes(by_id: ById, removes: list[uuid.UUID]) -> list[AccessControlEntryRecord]:
    """The stored records ``removes`` names. ``ValueError`` for an id named twice,
    :class:`UnknownAclError` for an id not stored."""
    if not removes:
        return []
    if len(set(removes)) != len(removes):
        raise ValueError("a batch names the same ACL id twice in its removals")
    found = list(map(by_id.get, removes))
    if None in found:
        missing = removes[found.index(None)]
        raise UnknownAclError(
            f"cannot remove ACL id {kafka_uuid_text(missing)}: no stored ACL has it; "
            "list the stored ACLs to find the right id"
        )
    return found  # type: ignore[return-value]


def check_adds(
    by_id: ById, adds: Iterable[AccessControlEntryRecord], freed: Iterable[uuid.UUID]
) -> None:
    """``ValueError`` if an id of ``adds`` repeats, or is stored and not in ``freed``."""
    seen: set[uuid.UUID] = set()
    free = set(freed)
    for acl in adds:
        key = acl.id
        if key in seen or (key in by_id and key not in free):
            raise ValueError(
                f"ACL id {kafka_uuid_text(acl.id)} is already stored; remove it first "
                "or give the new ACL a fresh id"
            )
        seen.add(key)
