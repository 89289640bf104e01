"""The Changes view's "effect on access": for each batch shown, whose decisions it changed on
the resources its ACLs name, as :func:`aclog.questions.impact_of_changing` (what ``aclog
plan --inventory`` and ``acls add --inventory`` print) answers for that batch's additions and
removals against the state just before it.

The inventory of a batch is the resources its changed ACLs name (``TOPIC:payments``; a
prefix or glob stands for itself, as a name it covers). Only the ACLs that apply to a page's
resources take part, read from the state before the page in one pass over its columns
(:func:`aclog.image.acls_applying`, no authorizer of the whole state), then carried forward
batch by batch, so a page costs a few small authorizer builds, not one per batch over the
whole state.

Thread-safe (no shared state). Cost: O(ACLs) numpy passes over the state before the page,
then per batch two authorizer builds over the ACLs on its resources; a batch of more than
:data:`MAX_EFFECT_ACLS` changes is not assessed (its effect is ``None``).
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from aclog.authorizer import pattern_applies
from aclog.image import MetadataImage, acls_applying
from aclog.questions import impact_of_changing
from aclog.records import (
    AccessControlEntryRecord,
    PatternType,
    RemoveAccessControlEntryRecord,
    ResourceType,
)
from aclog.replay import DecodedBatch

MAX_EFFECT_ACLS = 50
"""A batch changing more ACLs than this is not assessed on the page (``aclog plan`` can)."""

Resource = tuple[ResourceType, str]


@dataclass(frozen=True)
class _Change:
    """One batch's ACL changes: the ACLs it added and those it removed (the removed ACL
    itself, found in the batches before it on the page or in the state before the page)."""

    base_offset: int
    added: list[AccessControlEntryRecord]
    removed: list[AccessControlEntryRecord]

    @property
    def size(self) -> int:
        return len(self.added) + len(self.removed)

    def resources(self) -> list[Resource]:
        named = [(acl.resource_type, acl.resource_name) for acl in (*self.added, *self.removed)]
        return list(dict.fromkeys(named))


def _changes(before: MetadataImage, batches: Sequence[DecodedBatch]) -> list[_Change]:
    """Each batch's additions and removals, each removal resolved to its ACL."""
    seen: dict[uuid.UUID, AccessControlEntryRecord] = {}
    found = []
    for batch in batches:
        added, removed = [], []
        for record in batch.records:
            if isinstance(record, AccessControlEntryRecord):
                added.append(record)
                seen[record.id] = record
            elif isinstance(record, RemoveAccessControlEntryRecord):
                acl = seen.get(record.id) or before.acls.acls.get(record.id)
                if acl is not None:
                    removed.append(acl)
        found.append(_Change(batch.base_offset, added, removed))
    return found


def _applies(acl: AccessControlEntryRecord, resources: set[Resource]) -> bool:
    """Whether ``acl`` applies to any of ``resources`` (a LITERAL ACL by one set lookup)."""
    if acl.pattern_type == PatternType.LITERAL and acl.resource_name != "*":
        return (acl.resource_type, acl.resource_name) in resources
    return any(
        rt == acl.resource_type and pattern_applies(acl.pattern_type, acl.resource_name, name)
        for rt, name in resources
    )


def batch_effects(
    before: MetadataImage, batches: Sequence[DecodedBatch]
) -> dict[int, list[dict[str, object]] | None]:
    """Each batch's effect on access by base offset: the resources its ACLs name, each with
    the decisions that batch flipped there (``impact_of_changing``'s dicts); ``None`` for a
    batch too large to assess here. ``before`` is the state just before the first batch."""
    changes = _changes(before, batches)
    page = {r for change in changes if change.size <= MAX_EFFECT_ACLS for r in change.resources()}
    live = {acl.id: acl for acl in acls_applying(before.acls, sorted(page))}
    effects: dict[int, list[dict[str, object]] | None] = {}
    for change in changes:
        if change.size > MAX_EFFECT_ACLS:
            effects[change.base_offset] = None
        else:
            impacts = impact_of_changing(
                live.values(), change.added, change.removed, change.resources()
            )
            effects[change.base_offset] = [impact.to_dict() for impact in impacts]
        for acl in change.removed:
            live.pop(acl.id, None)
        live.update((acl.id, acl) for acl in change.added if _applies(acl, page))
    return effects
