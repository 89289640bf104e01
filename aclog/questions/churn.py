"""Who or what the changes were about: the ACLs each committed batch added and removed, split
by principal or by resource, for the few keys with the most changes (the rest summed as one).
"Which team's grants moved last week" is the question; the Timeline chart draws the answer.

A removal record names only an ACL id, so the split follows the ids the batches read added;
a removal of an ACL added before them (in a snapshot whose segments were deleted) counts under
:data:`UNKNOWN`.

Pure; thread-safe. Cost: one pass over the batches; memory O(ACLs they add) while it runs
(id -> key), and O(batches x ``top``) for the answer.
"""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal

from aclog.records import AccessControlEntryRecord, RemoveAccessControlEntryRecord
from aclog.replay import DecodedBatch

SplitBy = Literal["principal", "resource"]

OTHERS = "(others)"
"""The key the changes of every key past the ``top`` are summed under."""

UNKNOWN = "(added before the log read)"
"""The key of a removal whose ACL's addition was not read."""

_KEYS: dict[str, Callable[[AccessControlEntryRecord], str]] = {
    "principal": lambda acl: acl.principal,
    "resource": lambda acl: f"{acl.resource_type.name}:{acl.pattern_type.name}:{acl.resource_name}",
}


@dataclass(frozen=True)
class KeySeries:
    """One key's changes, batch by batch (aligned with :attr:`ChangeSplit.offsets`)."""

    key: str
    added: list[int]
    removed: list[int]


@dataclass(frozen=True)
class ChangeSplit:
    """Each batch's last offset, and the ACLs added and removed in it per key: the ``top``
    keys with the most changes, most first, then :data:`OTHERS` when any key was left out."""

    by: str
    offsets: list[int]
    series: list[KeySeries]

    def to_dict(self) -> dict[str, object]:
        return {
            "by": self.by,
            "offsets": self.offsets,
            "series": [{"key": s.key, "added": s.added, "removed": s.removed} for s in self.series],
        }


def split_changes(batches: Iterable[DecodedBatch], by: SplitBy, top: int = 6) -> ChangeSplit:
    """The ACL changes of ``batches`` per ``by`` (a principal, or a resource pattern as
    ``TYPE:PATTERN_TYPE:name``), for the ``top`` keys with the most changes."""
    key_of = _KEYS[by]
    keys: dict[uuid.UUID, str] = {}
    offsets: list[int] = []
    per_batch: list[tuple[Counter[str], Counter[str]]] = []
    totals: Counter[str] = Counter()
    for batch in batches:
        added, removed = Counter[str](), Counter[str]()
        for record in batch.records:
            if isinstance(record, AccessControlEntryRecord):
                keys[record.id] = key = key_of(record)
                added[key] += 1
            elif isinstance(record, RemoveAccessControlEntryRecord):
                removed[keys.pop(record.id, UNKNOWN)] += 1
        offsets.append(batch.last_offset)
        per_batch.append((added, removed))
        totals.update(added)
        totals.update(removed)
    chosen = [key for key, _ in sorted(totals.items(), key=lambda kv: (-kv[1], kv[0]))[:top]]
    series = [_series(key, per_batch) for key in chosen]
    if len(totals) > len(chosen):
        series.append(_others(set(chosen), per_batch))
    return ChangeSplit(by, offsets, series)


def _series(key: str, per_batch: list[tuple[Counter[str], Counter[str]]]) -> KeySeries:
    return KeySeries(key, [a[key] for a, _ in per_batch], [r[key] for _, r in per_batch])


def _others(chosen: set[str], per_batch: list[tuple[Counter[str], Counter[str]]]) -> KeySeries:
    def rest(counts: Counter[str]) -> int:
        return sum(n for key, n in counts.items() if key not in chosen)

    return KeySeries(OTHERS, [rest(a) for a, _ in per_batch], [rest(r) for _, r in per_batch])
