"""When did a principal gain or lose an operation on a resource: one request decided after every
batch of a log that changes an ACL on the resource, with the batch, its author and the ACL
records that flipped the answer.

The state at the start point is rebuilt (snapshot + log, :func:`rebuild_image`); then each later
batch up to the end point is replayed on its own through :func:`replay_batches` (so the image is
the state as of that batch, as ``explain --at-offset`` rebuilds it) and its ACL changes are
handed to an :class:`Authorizer` the way the broker's publisher hands them over. Only a batch
that adds or removes an ACL whose pattern applies to the resource can change the answer (the
decision reads those ACLs alone), so only then is the request explained again. Every answer is
:meth:`Authorizer.explain`'s, folded per host class by :mod:`~aclog.questions.host_answers`.

Many questions share one walk (:func:`timelines`): the pipeline's ``timeline`` job asks each
task's questions so.

Reads only. Thread-safe (no shared state). Cost: one rebuild, then O(records after the start)
to replay, plus per question one explain per host class for each batch that touches its
resource.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from aclog.authorizer import AclFilter, Authorizer, pattern_applies
from aclog.image import MetadataImage
from aclog.image.acl_reads import stored_records
from aclog.kraft import once_each, read_kraft, tail_warner
from aclog.questions.host_answers import HostAnswer, answers_by_host, named_hosts
from aclog.questions.timeline_result import (
    ADDED,
    REMOVED,
    AclChange,
    Flip,
    Timeline,
    state_key,
)
from aclog.records import AccessControlEntryRecord, AclOperation, PatternType, ResourceType
from aclog.records.warning import OnWarning, ignore_warning
from aclog.replay.batches import replay_batches
from aclog.replay.diff import Point
from aclog.replay.kraft_batches import kraft_decoded_batch
from aclog.replay.rebuild import rebuild_image
from aclog.replay.stream import DecodedBatch, read_decoded

BEGINNING = Point(offset=-1)
"""The state before the first record: where a timeline starts unless told otherwise."""


OnProgress = Callable[[int, str], None]
"""Told the last offset done and the pass it belongs to (``replaying``, then ``walking``)."""


@dataclass(frozen=True)
class Question:
    """One request to follow: ``principal`` doing ``operation`` on the resource, from ``host``
    (``None``: from each host class)."""

    principal: str
    operation: AclOperation
    resource_type: ResourceType
    name: str
    host: str | None = None

    def check(self) -> None:
        """``ValueError`` for operation or resource type ANY (or UNKNOWN)."""
        if self.operation in (AclOperation.ANY, AclOperation.UNKNOWN):
            raise ValueError("a timeline needs one operation, not ANY")
        if self.resource_type in (ResourceType.ANY, ResourceType.UNKNOWN):
            raise ValueError("a timeline needs one resource type, not ANY")


def timeline(
    directory: Path,
    principal: str,
    operation: AclOperation,
    resource_type: ResourceType,
    name: str,
    *,
    host: str | None = None,
    start: Point = BEGINNING,
    end: Point = Point(),  # noqa: B008 - immutable
    super_users: Iterable[str] = (),
    allow_everyone_if_no_acl_found: bool = False,
    kraft: bool = False,
    on_warning: OnWarning = ignore_warning,
    on_progress: OnProgress | None = None,
) -> Timeline:
    """The request's answer at ``start`` and every flip up to ``end`` (whole batches at or
    below an end offset and at or before an end time; ``Point()``: the end of the log).
    ``on_progress`` is told each batch's last offset and the pass it is in (``replaying`` to
    the start, then ``walking`` to the end).

    ``ValueError`` for operation or resource type ANY; :class:`RebuildError` when the log cannot
    give the start state."""
    (found,) = timelines(
        directory,
        [Question(principal, operation, resource_type, name, host)],
        start=start,
        end=end,
        super_users=super_users,
        allow_everyone_if_no_acl_found=allow_everyone_if_no_acl_found,
        kraft=kraft,
        on_warning=on_warning,
        on_progress=on_progress,
    )
    return found


def timelines(
    directory: Path,
    questions: Sequence[Question],
    *,
    start: Point = BEGINNING,
    end: Point = Point(),  # noqa: B008 - immutable
    super_users: Iterable[str] = (),
    allow_everyone_if_no_acl_found: bool = False,
    kraft: bool = False,
    on_warning: OnWarning = ignore_warning,
    on_progress: OnProgress | None = None,
) -> list[Timeline]:
    """:func:`timeline` for each question, in order, from one walk of the log."""
    for question in questions:
        question.check()
    on_warning = once_each(on_warning)  # the rebuild and the walk may both reach a bad tail
    rebuilt = rebuild_image(
        directory,
        at_offset=start.offset,
        at_time_ms=start.time_ms,
        kraft=kraft,
        on_warning=on_warning,
        on_batch=None if on_progress is None else lambda b: on_progress(b.last_offset, "replaying"),
    )
    image = rebuilt.image
    authorizer = Authorizer(super_users, allow_everyone_if_no_acl_found)
    authorizer.load(image.acls)
    initial = [_ask(authorizer, q) for q in questions]
    current = list(initial)
    flips: list[list[Flip]] = [[] for _ in questions]
    next_offset = image.provenance.last_offset + 1
    for batch in _batches(directory, next_offset, end, kraft, on_warning):
        if on_progress is not None:
            on_progress(batch.last_offset, "walking")
        replayed = replay_batches(image, [batch], start=next_offset)
        acls_delta = None if replayed.delta is None else replayed.delta.acls_delta
        if acls_delta is not None and acls_delta.changes:
            before = _replaced(image, acls_delta.changes)
            authorizer.apply_changes(acls_delta.changes)
            for i, q in enumerate(questions):
                changed = _changes_on(before, acls_delta.changes, q.resource_type, q.name)
                if changed:
                    after = _ask(authorizer, q)
                    if state_key(after) != state_key(current[i]):
                        flips[i].append(_flip(batch, changed, current[i], after))
                    current[i] = after
        image, next_offset = replayed.image, replayed.image.provenance.last_offset + 1
    return [
        Timeline(q.principal, q.operation, q.resource_type, q.name, q.host,
                 rebuilt.image.provenance, image.provenance, initial[i], tuple(flips[i]))
        for i, q in enumerate(questions)
    ]  # fmt: skip


def _ask(authorizer: Authorizer, q: Question) -> tuple[HostAnswer, ...]:
    """The question's answer now, per host class (or from its one host)."""
    on_resource = [] if q.host is not None else authorizer.acls(_on(q.resource_type, q.name))
    return tuple(
        answers_by_host(
            lambda at: authorizer.explain(q.principal, at, q.operation, q.resource_type, q.name),
            named_hosts(on_resource),
            q.host,
        )
    )


def _on(resource_type: ResourceType, name: str) -> AclFilter:
    """Every ACL that applies to the resource (a MATCH filter with its name)."""
    return AclFilter(resource_type, name, PatternType.MATCH)


def _batches(
    directory: Path, start: int, end: Point, kraft: bool, on_warning: OnWarning
) -> Iterator[DecodedBatch]:
    """The batches holding offsets from ``start``, while they are within ``end`` (a KRaft
    log's whole last batch that fails its CRC is told to ``on_warning`` when reached)."""
    on_tail = tail_warner(on_warning)
    batches: Iterable[DecodedBatch] = (
        (kraft_decoded_batch(batch) for batch in read_kraft(directory, start, on_tail=on_tail))
        if kraft
        else read_decoded(directory, start)
    )
    for batch in batches:
        if end.offset is not None and batch.last_offset > end.offset:
            return
        if end.time_ms is not None and batch.timestamp_ms > end.time_ms:
            return
        yield batch


def _applies(acl: AccessControlEntryRecord, resource_type: ResourceType, name: str) -> bool:
    return acl.resource_type == resource_type and pattern_applies(
        acl.pattern_type, acl.resource_name, name
    )


def _replaced(
    image: MetadataImage, changes: Mapping[uuid.UUID, AccessControlEntryRecord | None]
) -> dict[uuid.UUID, AccessControlEntryRecord]:
    """The ACLs of ``image`` that ``changes`` remove or replace, by id: looked up once per
    batch (one search on a table-backed image), not once per question."""
    acl_ids = list(changes)
    return {
        acl_id: old
        for acl_id, old in zip(acl_ids, stored_records(image.acls, acl_ids), strict=True)
        if old is not None
    }


def _changes_on(
    before: Mapping[uuid.UUID, AccessControlEntryRecord],
    changes: Mapping[uuid.UUID, AccessControlEntryRecord | None],
    resource_type: ResourceType,
    name: str,
) -> tuple[AclChange, ...]:
    """The ACLs on the resource that ``changes`` (a delta's, over ``before``: the stored ACLs
    they name) removed and added, in commit order; a record replacing its id removes the old
    ACL first."""
    found: list[AclChange] = []
    for acl_id, new in changes.items():
        old = before.get(acl_id)
        if old is not None and old != new and _applies(old, resource_type, name):
            found.append(AclChange(REMOVED, old))
        if new is not None and new != old and _applies(new, resource_type, name):
            found.append(AclChange(ADDED, new))
    return tuple(found)


def _flip(
    batch: DecodedBatch,
    changes: tuple[AclChange, ...],
    before: tuple[HostAnswer, ...],
    after: tuple[HostAnswer, ...],
) -> Flip:
    return Flip(
        batch.base_offset,
        batch.last_offset,
        batch.timestamp_ms,
        batch.author,
        changes,
        before,
        after,
    )
