"""Following a cluster aclog does not run: each poll's observed state (DescribeAcls for all,
DescribeUserScramCredentials) is compared with the data directory's image, and the difference
is appended as ONE batch whose request context says where and when it was observed and that the
requester is unknown (the admin API does not say who changed anything).

What is recorded passes the rules every change to a log passes
(:class:`~aclog.controller.admission.RecordAdmission`, the controller's definitions): an ACL
the cluster holds that aclog's rules refuse (a host name where aclog wants an IP address, say)
is kept out and logged once, and the stop report lists it. The admin API shows a credential's
mechanism and iteration count but never its salt or keys, so an observed credential is recorded
with empty salt and keys (the one rule that differs for it): history shows it came, changed
iterations and went; no SCRAM login can succeed against it.

The first poll of an empty data directory records the initial state; later polls (and a
restarted follower, which starts from the image on disk) record only changes.

:class:`FollowLoop` is thread-safe to stop (:attr:`FollowLoop.stop` is an event); the rest is
not. Cost per poll: two describe requests and O(ACLs + users) to compare; a commit only when
something changed.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from threading import Event
from typing import Any

from aclog.acl import ApiError
from aclog.controller.admission import RecordAdmission
from aclog.controller.caller import Caller
from aclog.controller.controller import Controller
from aclog.controller.group import Ticket
from aclog.controller.result import ControllerResult
from aclog.controller.writer import MetadataWriter
from aclog.desired.current import CurrentState
from aclog.desired.writer import read_current
from aclog.image import MetadataImage
from aclog.kraft import Rejected
from aclog.records import (
    Record,
    RemoveAccessControlEntryRecord,
    RemoveUserScramCredentialRecord,
    UserScramCredentialRecord,
    new_acl_id,
    record_to_dict,
)

UNKNOWN_REQUESTER = "unknown"
"""The principal of an observed change: the admin API does not tell who made it."""


def observed_records(
    image: MetadataImage,
    observed: CurrentState,
    new_id: Callable[[], Any] = new_acl_id,
) -> list[Record]:
    """The records that take ``image`` to what was ``observed``: new ACLs, removed ACLs (by
    the image's ids), credentials that appeared or changed iterations, credentials gone."""
    stored = {acl.key: acl for acl in image.acls}
    seen = {acl.key for acl in observed.acls}
    records: list[Record] = [
        acl.with_id(new_id()) for acl in observed.acls if acl.key not in stored
    ]
    records += [
        RemoveAccessControlEntryRecord(acl.id) for k, acl in stored.items() if k not in seen
    ]
    held = CurrentState.from_image(image).users
    records += [
        UserScramCredentialRecord(name, mechanism, b"", b"", b"", iterations)
        for (name, mechanism), iterations in sorted(observed.users.items())
        if held.get((name, mechanism)) != iterations
    ]
    records += [
        RemoveUserScramCredentialRecord(name, mechanism)
        for name, mechanism in sorted(held)
        if (name, mechanism) not in observed.users
    ]
    return records


def observer(source: str, when_ms: int) -> Caller:
    """The request context of a change observed on ``source`` at ``when_ms``."""
    when = dt.datetime.fromtimestamp(when_ms / 1000, dt.UTC).isoformat(timespec="milliseconds")
    return Caller(
        UNKNOWN_REQUESTER,
        source,
        "aclog-follow",
        f"observed by aclog follow on {source} at {when.replace('+00:00', 'Z')}; the requester "
        "is unknown to the admin API",
    )


@dataclass(frozen=True)
class Observation:
    """What one poll recorded: how many records (0: nothing changed), or why it failed."""

    records: int
    error: ApiError | None = None
    rejected: tuple[Rejected, ...] = ()


def record_observation(
    controller: Controller, observed: CurrentState, caller: Caller
) -> Observation:
    """Append the difference between the controller's image and ``observed`` as one batch
    (decided under the commit lock against the pending image); nothing if there is none."""

    def decide(image: MetadataImage) -> ControllerResult[Observation]:
        records = observed_records(image, observed)
        verdict = RecordAdmission(image, observed=True).admit(
            [(image.provenance.last_offset + 1, r) for r in records], atomic=False
        )
        kept = tuple(verdict.kept)
        return ControllerResult(kept, Observation(len(kept), rejected=tuple(verdict.rejected)))

    return controller.commit(Ticket(decide, caller, lambda e: Observation(0, e)))


@dataclass(frozen=True)
class FollowReport:
    """How a :class:`FollowLoop` ended: ``polls`` reached the cluster (0: it never answered, so
    nothing was observed, not even an unchanged state), ``recorded`` of them recorded changes."""

    polls: int
    recorded: int
    rejected: tuple[Rejected, ...] = ()  # each observed record kept out, once


@dataclass
class FollowLoop:
    """Poll, record, wait ``interval`` seconds; until :attr:`stop` is set.

    ``connect`` opens a reader (a :class:`~aclog.controller.writer.MetadataWriter`); a failure
    in ``retryable`` (an unreachable cluster, a refused describe) is logged, the reader is
    dropped, and the poll is retried after a backoff that doubles from one second up to
    ``interval``.
    """

    source: str
    connect: Callable[[], MetadataWriter]
    controller: Controller
    interval: float
    retryable: tuple[type[BaseException], ...]
    log: Callable[[str], None]
    clock: Callable[[], float] = time.time
    stop: Event = field(default_factory=Event)
    _rejected: dict[str, Rejected] = field(default_factory=dict, init=False)

    def run(self) -> FollowReport:
        """Follow until stopped; how many polls reached the cluster and recorded something."""
        reader: MetadataWriter | None = None
        failures = polls = recorded = 0
        while not self.stop.is_set():
            try:
                reader = reader or self.connect()
                caller = observer(self.source, int(self.clock() * 1000))
                observation = record_observation(
                    self.controller, read_current(reader, caller), caller
                )
            except self.retryable as error:
                _closed(reader)
                reader = None
                failures += 1
                delay = min(self.interval, 2.0 ** (failures - 1))
                self.log(f"cannot poll {self.source}: {error}; retrying in {delay:g} s")
                self.stop.wait(delay)
                continue
            failures = 0
            polls += 1
            recorded += self._report(observation)
            self.stop.wait(self.interval)
        _closed(reader)
        return FollowReport(polls, recorded, tuple(self._rejected.values()))

    def _report(self, observation: Observation) -> int:
        if observation.error is not None:
            self.log(f"could not record an observation: {observation.error.message}")
            return 0
        for rejected in observation.rejected:
            # A kept-out ACL is seen again at every poll (with a new id each time): say it once.
            key = _observed_text(rejected)
            if key not in self._rejected:
                self._rejected[key] = rejected
                self.log(f"kept out an observed {key}")
        if observation.records:
            end = self.controller.log.end_offset
            self.log(f"recorded {observation.records} records of observed changes (log end {end})")
        return 1 if observation.records else 0


def _observed_text(rejected: Rejected) -> str:
    """What was kept out and why, without the id aclog made for an observed ACL."""
    record = rejected.record
    shown = {k: v for k, v in record_to_dict(record).items() if k != "id"}
    return f"{type(record).__name__}: {rejected.error}: {rejected.reason} ({shown})"


def _closed(reader: MetadataWriter | None) -> None:
    """Close ``reader`` if there is one (it is dropped either way)."""
    if reader is not None:
        # A reader that failed may fail to close too.
        with contextlib.suppress(Exception):
            reader.close()
