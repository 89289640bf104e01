"""What the batch accelerator takes of a batch: its ids, changes, removals and added bindings.

:func:`of_records` takes them from ACL records in commit order (a batch handed over from
memory, or records read one batch at a time); :func:`of_rows` from a decoded batch's rows a
type at a time (:class:`~aclog.records.decoded.AclRows`), where the additions' binding keys
come straight from the columns and no pass over the records tells additions from removals.
Both give ``None`` for a batch that names an id twice: one-by-one replay decides it.

Thread-safe (pure functions; the dicts returned are new). Cost: each id hashed once into the
batch's dict (``UUID.__hash__`` runs in Python), the removals' once more into theirs; no
Python call per record besides.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import compress, repeat
from operator import attrgetter, is_, not_

from aclog.records.decoded import AclRows
from aclog.records.types import (
    AccessControlEntryRecord,
    AclKey,
    RemoveAccessControlEntryRecord,
    acl_keys,
)

AclRecord = AccessControlEntryRecord | RemoveAccessControlEntryRecord
Changes = dict[uuid.UUID, AccessControlEntryRecord | None]
_id_of = attrgetter("id")


@dataclass(frozen=True, slots=True)
class BatchParts:
    """A batch whose ids are distinct: each id's record (``None`` for a removal) in commit
    order unless ``rows`` (the decoded rows it came from) give that order, the removals, and
    the additions' binding keys and ids in order."""

    changes: Changes
    removals: dict[uuid.UUID, None]
    keys: Iterable[AclKey]
    add_ids: Iterable[uuid.UUID]
    rows: AclRows | None = None


def of_records(records: Sequence[AclRecord]) -> BatchParts | None:
    """The parts of ``records``, in commit order; ``None`` when an id is named twice."""
    ids = list(map(_id_of, records))
    # Each id's record, then None for the removals' (update keeps the order and reuses the
    # removals' stored hashes).
    batch: Changes = dict(zip(ids, records, strict=True))  # type: ignore[arg-type]
    if len(batch) != len(ids):
        return None
    adding = list(map(is_, map(type, records), repeat(AccessControlEntryRecord)))
    adds: list[AccessControlEntryRecord] = list(compress(records, adding))  # type: ignore[arg-type]
    removals = dict.fromkeys(compress(ids, map(not_, adding))) if len(adds) < len(ids) else {}
    batch.update(removals)
    return BatchParts(batch, removals, acl_keys(adds), compress(ids, adding))


def of_rows(rows: AclRows) -> BatchParts | None:
    """The parts of a decoded batch's ACL records; ``None`` when an id is named twice. The
    changes are not put in row order (a gather only the delta's bookkeeping needs): ``rows``
    give it when asked."""
    batch: Changes = dict(zip(rows.add_ids, rows.adds, strict=True))
    removals = dict.fromkeys(rows.remove_ids)
    batch.update(removals)
    if len(batch) != rows.count:
        return None
    return BatchParts(batch, removals, rows.keys, rows.add_ids, rows)
