"""The writer's side of the authorizer: checking a batch against the stored ids, and building the
index for a load or a big batch without the cyclic garbage collector in the way.

The writer keeps its own view of the stored ACLs, keyed by ``UUID.int`` (hashing a ``UUID`` is a
Python-level call; its ``int`` hashes in C).

Not thread-safe: only the one writer thread calls these. Costs are O(batch).
"""

from __future__ import annotations

import gc
import uuid
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

from aclog.authorizer.results import UnknownAclError
from aclog.records.types import AccessControlEntryRecord, kafka_uuid_text

ById = dict[int, AccessControlEntryRecord]

BIG_BATCH = 10_000
"""A batch at least this big is built with the garbage collector paused."""


@contextmanager
def gc_paused(*, freeze: bool = False) -> Iterator[None]:
    """Pause the cyclic garbage collector during a bulk build; ``freeze=True`` also moves
    everything alive at a normal exit into the permanent generation (``gc.freeze()``).

    A build allocates a few objects per ACL and frees none, yet every 700 allocations start a
    collection, and the full ones walk every object in the process: about 40% of a 1M-ACL load.
    The index holds no reference cycles, so nothing is lost by collecting once afterwards, at
    the next allocation threshold. Reference counting goes on as usual.

    That one collection still walks every object the build made (they are all in the youngest
    generation), and the next older generations walk them again later: about a second per
    million ACLs. ``freeze`` is for a build whose result lives as long as the process (a
    broker's catch-up): frozen objects are never walked again, and reference counting still
    frees them when they are replaced; only reference cycles among them would never be freed,
    and the image and index have none. An error skips the freeze. Either way the collector
    ends as enabled or disabled as it was."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
        if freeze:
            gc.freeze()
    finally:
        if enabled:
            gc.enable()


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
