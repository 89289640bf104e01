"""The controller's rules for records that come from outside it: one checked path into a log.

The controller decides requests (:mod:`aclog.controller.acl_manager`,
:mod:`aclog.controller.scram_manager`); an import from KRaft brings records already decided
by Kafka. :class:`RecordAdmission` holds both to the same rules, from the same definitions:

- an ACL: :func:`~aclog.controller.validation.creation_error` (Kafka's checks, then aclog's);
- a credential: :func:`~aclog.controller.validation.scram_record_error`; a credential's
  removal: :func:`~aclog.controller.validation.scram_user_error`;
- then the state's own rules, as replay applies them (:class:`~aclog.image.MetadataDelta`):
  ids and bindings unique, a removal names an ACL or credential that exists.

What "kept out" means: the record is not written and is reported. A removal of an ACL that
was kept out is kept out too (it names an ACL the log never held) and says so. In one
request's records (``atomic``), a user's SCRAM changes stand or fall together, as
:class:`~aclog.controller.scram_manager.ScramControlManager` decides them: one kept out keeps
out the user's others. The state then advances by what was admitted only.

Not thread-safe: one import owns one admission. Cost: O(records) rule checks and one replay
of the admitted records onto the held image per batch.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from aclog.acl import ApiError, Errors
from aclog.controller.validation import creation_error, scram_record_error, scram_user_error
from aclog.image import MetadataDelta, MetadataImage, MetadataProvenance, ReplayError
from aclog.kraft.admission import Admitted, Rejected
from aclog.records import (
    AccessControlEntryRecord,
    Record,
    RemoveAccessControlEntryRecord,
    RemoveUserScramCredentialRecord,
    UserScramCredentialRecord,
)
from aclog.replay import rebuild_image

_INVALID = Errors.INVALID_REQUEST


def rule_error(record: Record, *, observed: bool = False) -> ApiError | None:
    """The controller's rule a record breaks on its own (no state needed), or ``None``
    (``observed``: see :func:`~aclog.controller.validation.scram_record_error`)."""
    if isinstance(record, AccessControlEntryRecord):
        return creation_error(record.binding)
    if isinstance(record, UserScramCredentialRecord):
        return scram_record_error(record, observed=observed)
    if isinstance(record, RemoveUserScramCredentialRecord):
        return scram_user_error(record.name, record.mechanism)
    return None


def _user(record: Record) -> str | None:
    if isinstance(record, UserScramCredentialRecord | RemoveUserScramCredentialRecord):
        return record.name
    return None


@dataclass
class RecordAdmission:
    """Admits source records onto ``image`` (the state of the log they go to)."""

    image: MetadataImage
    observed: bool = False  # records aclog follow observed: credentials without salt or keys
    kept_out_acls: dict[uuid.UUID, str] = field(default_factory=dict)  # id -> where it was

    @classmethod
    def of_directory(cls, data_dir: Path) -> RecordAdmission:
        """An admission onto the state of the log in ``data_dir`` (empty when there is none)."""
        if not data_dir.is_dir():
            return cls(MetadataImage.EMPTY)
        return cls(rebuild_image(data_dir).image)

    def admit(
        self,
        records: Sequence[tuple[int, Record]],
        *,
        atomic: bool,
        snapshot: str | None = None,
        first_index: int = 0,
    ) -> Admitted:
        """The verdict on one batch (see :class:`aclog.kraft.admission.Admission`)."""
        refused: dict[int, Rejected] = {}
        for i, (offset, record) in enumerate(records):
            error = rule_error(record, observed=self.observed)
            if error is not None:
                refused[i] = _rejected(offset, record, error, snapshot, first_index + i)
        while True:  # a refusal can fell other records (a user's, a removal): decide again
            self._remember(refused.values())
            fast = self._fast(records, refused, atomic)
            if fast is not None:
                delta = fast
                break
            delta, more = self._replay(records, refused, atomic, snapshot, first_index)
            if not more:
                break
            refused.update(more)
        last = max((offset for offset, _ in records), default=self.image.provenance.last_offset)
        self.image = delta.apply(MetadataProvenance(last, 0, 0))
        kept = [record for i, (_, record) in enumerate(records) if i not in refused]
        return Admitted(kept, [refused[i] for i in sorted(refused)])

    def _remember(self, refused: Iterable[Rejected]) -> None:
        """Note the ACLs kept out, so that a removal of one says so."""
        for rejected in refused:
            if isinstance(rejected.record, AccessControlEntryRecord):
                self.kept_out_acls.setdefault(rejected.record.id, rejected.where())

    def _fast(
        self, records: Sequence[tuple[int, Record]], refused: dict[int, Rejected], atomic: bool
    ) -> MetadataDelta | None:
        """The delta of every record not refused, replayed as whole batches (the replay's
        fast path), when none of them meets a state rule: the common case. ``None`` sends the
        batch through :meth:`_replay`, one record at a time, to find which ones do."""
        fallen = _fallen(refused, atomic)
        rest = [record for i, (_, record) in enumerate(records) if i not in refused]
        for record in rest:
            if _user(record) in fallen or self._removes_kept_out(record):
                return None
        delta = MetadataDelta(self.image)
        try:
            delta.replay_records(rest, records[0][0] if records else 0)
        except ReplayError:
            return None
        return delta

    def _removes_kept_out(self, record: Record) -> bool:
        return isinstance(record, RemoveAccessControlEntryRecord) and (
            record.id in self.kept_out_acls
        )

    def _replay(
        self,
        records: Sequence[tuple[int, Record]],
        refused: dict[int, Rejected],
        atomic: bool,
        snapshot: str | None,
        first_index: int,
    ) -> tuple[MetadataDelta, dict[int, Rejected]]:
        """Replay what is not refused onto the image; new refusals (then the delta is void)."""
        fallen = _fallen(refused, atomic)
        delta, more = MetadataDelta(self.image), {}  # a fresh delta: a void one is dropped
        for i, (offset, record) in enumerate(records):
            if i in refused:
                continue
            error = self._state_error(delta, offset, record, fallen)
            if error is not None:
                more[i] = _rejected(offset, record, error, snapshot, first_index + i)
                if atomic and _user(record) is not None:
                    return delta, more  # the user's earlier changes fall too: start again
        return delta, more

    def _state_error(
        self, delta: MetadataDelta, offset: int, record: Record, fallen: set[str | None]
    ) -> ApiError | None:
        """Why ``record`` cannot apply where it stands, or ``None`` once it was replayed."""
        if _user(record) in fallen:
            return ApiError(_INVALID, "another change of this user in the same batch was kept out")
        if isinstance(record, RemoveAccessControlEntryRecord) and self._removes_kept_out(record):
            where = self.kept_out_acls[record.id]
            return ApiError(_INVALID, f"it removes the ACL kept out at {where}")
        try:
            delta.replay(record, offset)
        except ReplayError as error:
            return ApiError(_INVALID, str(error).removeprefix(f"offset {offset}: "))
        return None


def _fallen(refused: dict[int, Rejected], atomic: bool) -> set[str | None]:
    """The users whose changes in an ``atomic`` batch fall with one kept out."""
    if not atomic:
        return set()
    return {_user(r.record) for r in refused.values()} - {None}


def _rejected(
    offset: int, record: Record, error: ApiError, snapshot: str | None, index: int
) -> Rejected:
    return Rejected(
        offset,
        record,
        error.error.name,
        error.message or "",
        snapshot,
        index if snapshot is not None else None,
    )
