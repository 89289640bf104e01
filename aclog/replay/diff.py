"""What changed between two points of a log, and who changed it when.

The state at the first point is rebuilt (snapshot + log) and the log replayed to the second
point, or both states are given (:func:`diff_images`: the UI's kept states) and the batches
between them read; meanwhile the last change to each ACL and each SCRAM credential is
remembered with its batch's author and time. Comparing the two states gives what was added,
removed or changed; the remembered batches say who did it. An ACL added and removed again
between the points does not appear (the states are equal there), like a credential set back
to what it was. The ACL records read are kept as bytes (:mod:`aclog.replay.diff_events`), and
between two table-held images the ACL changes are columns, each built when read
(:mod:`aclog.replay.diff_rows`); ``_acl_changes`` is their reference.

Thread-safe (the kept diffs under a lock). Cost: see each function.
"""

from __future__ import annotations

import threading
import uuid
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from aclog.image import MetadataImage
from aclog.image.acl_reads import only_in
from aclog.records import (
    AccessControlEntryRecord,
    RemoveAccessControlEntryRecord,
    RemoveUserScramCredentialRecord,
    ScramMechanism,
    UserScramCredentialRecord,
    record_to_dict,
)
from aclog.records.warning import OnWarning, ignore_warning
from aclog.replay.diff_events import AclEvents, Change, Place
from aclog.replay.rebuild import rebuild_image
from aclog.replay.stream import DecodedBatch, Entry, read_decoded


@dataclass(frozen=True)
class Point:
    """A point in the log: an offset (inclusive, whole batches) or a time in ms."""

    offset: int | None = None
    time_ms: int | None = None


@dataclass
class Diff:
    """The ACL and SCRAM differences between two points."""

    start: MetadataImage
    end: MetadataImage
    acls: Sequence[Change] = field(default_factory=list)
    """In order of offset (a :class:`~aclog.replay.diff_rows.ChangeRows` between two
    table-held images: each change built when read)."""
    credentials: list[Change] = field(default_factory=list)
    _json: dict[str, Any] | None = field(default=None, init=False, repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (``aclog diff --json``), made once (a diff of a bulk import lists
        hundreds of thousands of changes; :func:`diff_images` hands a kept diff out again):
        read it, do not change it."""
        if self._json is None:
            self._json = {
                "from": self.start.provenance.to_dict(),
                "to": self.end.provenance.to_dict(),
                "acls": [c.to_dict() for c in self.acls],
                "credentials": [c.to_dict() for c in self.credentials],
            }
        return self._json


Key = tuple[str, ScramMechanism]


def diff(
    directory: Path,
    start: Point,
    end: Point,
    *,
    kraft: bool = False,
    on_warning: OnWarning = ignore_warning,
) -> Diff:
    """The changes from ``start`` to ``end`` (``end`` before ``start`` gives the reverse, its
    changes without batches); ``kraft=True`` reads a KRaft metadata directory (changes then
    have no author). ``on_warning`` hears what the replays warn of (a damaged last KRaft
    batch), each once. Cost: a rebuild at ``start``, then a replay of the whole log to
    ``end`` that hears each batch once (no snapshot: every batch between is heard)."""
    # Imported here: the kraft readers load kafka-python, which a diff of an aclog log (the
    # UI's, through diff_images) never needs.
    from aclog.kraft import once_each  # noqa: PLC0415

    on_warning = once_each(on_warning)  # both replays may read to the end of the log
    before = rebuild_image(
        directory,
        at_offset=start.offset,
        at_time_ms=start.time_ms,
        kraft=kraft,
        on_warning=on_warning,
    ).image
    events = _Events(before.provenance.last_offset)
    after = rebuild_image(
        directory,
        at_offset=end.offset,
        at_time_ms=end.time_ms,
        on_batch=events.remember,
        use_snapshots=False,
        kraft=kraft,
        on_warning=on_warning,
    ).image
    return events.diff(before, after)


def diff_images(directory: Path, before: MetadataImage, after: MetadataImage) -> Diff:
    """The changes from the state ``before`` to the state ``after``, both states of the data
    directory ``directory``, each change with the last batch between them that made it (read
    from the log). Kept for the :data:`KEPT` pairs of images asked most recently (images are
    immutable and the log below its end never changes, so the answer does not either): a
    page reloaded, paged or revisited answers at once, in the UI as in a process that asks
    twice. Thread-safe (a lock around the cache; two first asks may both compute). Cost:
    O(records between the two states) decoded, one comparison of the two images' id
    columns, a record per difference."""
    key = (directory, id(before), id(after))
    with _lock:
        kept = _kept.get(key)
        if kept is not None and kept[0] is before and kept[1] is after:
            _kept.move_to_end(key)
            return kept[2]
    events = _Events(before.provenance.last_offset)
    stop = after.provenance.last_offset + 1
    if stop > events.after_offset + 1:
        for batch in read_decoded(directory, events.after_offset + 1, stop):
            events.remember(batch)
    result = events.diff(before, after)
    with _lock:
        _kept[key] = (before, after, result)
        while len(_kept) > KEPT:
            _kept.popitem(last=False)
    return result


KEPT = 2
"""Diffs kept by :func:`diff_images`: each holds its two images and its changes."""

_lock = threading.Lock()
_kept: OrderedDict[tuple[Path, int, int], tuple[MetadataImage, MetadataImage, Diff]]
_kept = OrderedDict()


class _Event(NamedTuple):
    """Where a change was made: its offset, its batch's time and author (one dict shared by
    the changes of a batch: a bulk import's author is not copied per ACL)."""

    offset: int
    timestamp_ms: int
    author: dict[str, Any] | None


class _Events:
    """The last change of the batches after offset ``after_offset`` to each ACL
    (:class:`~aclog.replay.diff_rows.AclEvents`: columns) and each SCRAM credential (what
    :meth:`remember` heard)."""

    def __init__(self, after_offset: int) -> None:
        self.after_offset = after_offset
        self.acls = AclEvents()
        self.scram: dict[Key, _Event] = {}

    def remember(self, batch: DecodedBatch) -> None:
        if batch.last_offset <= self.after_offset:
            return
        places: dict[int, Place] = {}  # one author dict per author of the batch
        acls: dict[int, tuple[list[uuid.UUID], list[int]]] = {}
        for entry in _changes_of(batch):
            record = entry.record
            key = id(entry.author)
            place = places.get(key)
            if place is None:
                author = None if entry.author is None else record_to_dict(entry.author)
                places[key] = place = (entry.timestamp_ms, author)
            if isinstance(record, AccessControlEntryRecord | RemoveAccessControlEntryRecord):
                ids, offsets = acls.setdefault(key, ([], []))
                ids.append(record.id)
                offsets.append(entry.offset)
            else:
                event = _Event(entry.offset, *place)
                self.scram[(record.name, record.mechanism)] = event  # type: ignore[union-attr]
        for key, (ids, offsets) in acls.items():
            self.acls.add(ids, offsets, places[key])

    def diff(self, before: MetadataImage, after: MetadataImage) -> Diff:
        result = Diff(before, after)
        old, new = before.acls.table, after.acls.table
        if old is not None and new is not None:
            # Imported here: numpy, which two tables have loaded and a small diff need not.
            from aclog.replay.diff_rows import ChangeRows  # noqa: PLC0415

            result.acls = ChangeRows(old, new, self.acls)
        else:
            result.acls = _acl_changes(before, after, self.acls)
        result.credentials = _credential_changes(before, after, self.scram)
        return result


def _changes_of(batch: DecodedBatch) -> Iterator[Entry]:
    """The entries of ``batch`` that change an ACL or a SCRAM credential."""
    for entry in batch.entries:
        if isinstance(entry.record, _CHANGES):
            yield entry


_CHANGES = (
    AccessControlEntryRecord,
    RemoveAccessControlEntryRecord,
    UserScramCredentialRecord,
    RemoveUserScramCredentialRecord,
)


def _change(kind: str, subject: dict[str, Any], event: _Event | None) -> Change:
    if event is None:
        return Change(kind, subject, None, None, None)
    return Change(kind, subject, event.offset, event.timestamp_ms, event.author)


def _acl_changes(before: MetadataImage, after: MetadataImage, events: AclEvents) -> list[Change]:
    """The reference of :class:`~aclog.replay.diff_rows.ChangeRows`: every change built."""
    added = only_in(after.acls, before.acls)
    removed = only_in(before.acls, after.acls)
    last = events.last_by_id()
    changes = []
    for at, acl in enumerate([*added, *removed]):
        kind = "added" if at < len(added) else "removed"
        found = last.get(acl.id)
        event = None if found is None else _Event(found[0], *events.places[found[1]])
        changes.append(_change(kind, record_to_dict(acl), event))
    return sorted(changes, key=lambda c: (c.offset is None, c.offset))


def _credential_changes(
    before: MetadataImage, after: MetadataImage, events: dict[Key, _Event]
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
