"""What changed between two points of a log, and who changed it when.

The state at the first point is rebuilt (snapshot + log), then every batch up to the second point
is replayed while the last change to each ACL and each SCRAM credential is remembered with its
batch's author and time. Comparing the two states gives what was added, removed or changed; the
remembered batches say who did it. An ACL added and removed again between the points does not
appear (the states are equal there), like a credential set back to what it was.

Thread-safe (no shared state). Cost: one rebuild plus O(records between the points).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aclog.image import MetadataImage
from aclog.image.acl_reads import only_in
from aclog.kraft import once_each
from aclog.records import (
    AccessControlEntryRecord,
    RemoveAccessControlEntryRecord,
    RemoveUserScramCredentialRecord,
    ScramMechanism,
    UserScramCredentialRecord,
    record_to_dict,
)
from aclog.records.warning import OnWarning, ignore_warning
from aclog.replay.rebuild import rebuild_image
from aclog.replay.stream import DecodedBatch, Entry


@dataclass(frozen=True)
class Point:
    """A point in the log: an offset (inclusive, whole batches) or a time in ms."""

    offset: int | None = None
    time_ms: int | None = None


@dataclass(frozen=True)
class Change:
    """One difference between the two states, with the batch that made it."""

    kind: str  # "added", "removed" or "changed"
    subject: dict[str, Any]
    offset: int | None
    timestamp_ms: int | None
    author: dict[str, Any] | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "change": self.kind,
            **self.subject,
            "offset": self.offset,
            "timestamp": self.timestamp_ms,
            "author": self.author,
        }


@dataclass
class Diff:
    """The ACL and SCRAM differences between two points."""

    start: MetadataImage
    end: MetadataImage
    acls: list[Change] = field(default_factory=list)
    credentials: list[Change] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "from": self.start.provenance.to_dict(),
            "to": self.end.provenance.to_dict(),
            "acls": [c.to_dict() for c in self.acls],
            "credentials": [c.to_dict() for c in self.credentials],
        }


Key = tuple[str, ScramMechanism]


def diff(
    directory: Path,
    start: Point,
    end: Point,
    *,
    kraft: bool = False,
    on_warning: OnWarning = ignore_warning,
) -> Diff:
    """The changes from ``start`` to ``end`` (``end`` before ``start`` gives the reverse);
    ``kraft=True`` reads a KRaft metadata directory (changes then have no author).
    ``on_warning`` hears what the replays warn of (a damaged last KRaft batch), each once."""
    on_warning = once_each(on_warning)  # both replays may read to the end of the log
    before = rebuild_image(
        directory,
        at_offset=start.offset,
        at_time_ms=start.time_ms,
        kraft=kraft,
        on_warning=on_warning,
    ).image
    acl_events: dict[uuid.UUID, Entry] = {}
    scram_events: dict[Key, Entry] = {}

    def remember(batch: DecodedBatch) -> None:
        if batch.last_offset <= before.provenance.last_offset:
            return
        for entry in batch.entries:
            _remember(entry, acl_events, scram_events)

    after = rebuild_image(
        directory,
        at_offset=end.offset,
        at_time_ms=end.time_ms,
        on_batch=remember,
        use_snapshots=False,
        kraft=kraft,
        on_warning=on_warning,
    ).image
    result = Diff(before, after)
    result.acls = _acl_changes(before, after, acl_events)
    result.credentials = _credential_changes(before, after, scram_events)
    return result


def _remember(entry: Entry, acls: dict[uuid.UUID, Entry], scram: dict[Key, Entry]) -> None:
    record = entry.record
    if isinstance(record, AccessControlEntryRecord | RemoveAccessControlEntryRecord):
        acls[record.id] = entry
    elif isinstance(record, UserScramCredentialRecord | RemoveUserScramCredentialRecord):
        scram[(record.name, record.mechanism)] = entry


def _change(kind: str, subject: dict[str, Any], entry: Entry | None) -> Change:
    if entry is None:
        return Change(kind, subject, None, None, None)
    author = None if entry.author is None else record_to_dict(entry.author)
    return Change(kind, subject, entry.offset, entry.timestamp_ms, author)


def _acl_changes(
    before: MetadataImage, after: MetadataImage, events: dict[uuid.UUID, Entry]
) -> list[Change]:
    # ACLs are told apart by id here, so two tables compare their id columns and make
    # records for the differences only.
    changes = [
        _change("added", record_to_dict(acl), events.get(acl.id))
        for acl in only_in(after.acls, before.acls)
    ]
    changes += [
        _change("removed", record_to_dict(acl), events.get(acl.id))
        for acl in only_in(before.acls, after.acls)
    ]
    return sorted(changes, key=lambda c: (c.offset is None, c.offset))


def _credential_changes(
    before: MetadataImage, after: MetadataImage, events: dict[Key, Entry]
) -> list[Change]:
    old, new = _credentials(before), _credentials(after)
    changes = []
    for key in sorted(old.keys() | new.keys(), key=lambda k: (k[0], int(k[1]))):
        subject = {"name": key[0], "mechanism": key[1].mechanism_name}
        if key not in old:
            changes.append(_change("added", {**subject, "iterations": new[key]}, events.get(key)))
        elif key not in new:
            changes.append(_change("removed", subject, events.get(key)))
        elif events.get(key) is not None:
            changes.append(_change("changed", {**subject, "iterations": new[key]}, events.get(key)))
    return sorted(changes, key=lambda c: (c.offset is None, c.offset))


def _credentials(image: MetadataImage) -> dict[Key, int]:
    return {
        (user, mechanism): credential.iterations
        for user, mechanisms in image.scram.users.items()
        for mechanism, credential in mechanisms.items()
    }
