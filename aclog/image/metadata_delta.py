"""The delta that replays records into a :class:`~aclog.image.metadata.MetadataImage`.

:class:`MetadataDelta` routes every record through ONE dispatch table, :data:`_HANDLERS`. Adding a
record type means adding one entry there. A record class that is not in the table raises
:class:`ReplayError`, never a silent skip. Replay is deterministic: it never reads the clock,
randomness or any I/O; everything comes from the records and the offsets.

Not thread-safe: a delta is owned by the task that replays. Replay costs O(records), whole ACL
batches onto the image's table at numpy speed (:mod:`aclog.image.metadata_batches` routes a
batch; a batch decoded from a segment builds no ACL record); :meth:`MetadataDelta.apply`
costs about the size of the change.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from itertools import repeat
from typing import TYPE_CHECKING, Any, NoReturn

from aclog.image.acls import AclsDelta
from aclog.image.errors import ReplayError
from aclog.image.metadata import MetadataImage
from aclog.image.metadata_batches import replay_decoded, replay_records
from aclog.image.provenance import MetadataProvenance
from aclog.image.scram import ScramDelta
from aclog.records.decoded import DecodedRecords
from aclog.records.types import (
    AccessControlEntryRecord,
    LeaderChangeRecord,
    NoOpRecord,
    Record,
    RemoveAccessControlEntryRecord,
    RemoveUserScramCredentialRecord,
    RequestContextRecord,
    UserScramCredentialRecord,
)

if TYPE_CHECKING:
    from aclog.image.acl_table import AclTable
    from aclog.image.acl_table_replay import AclTableReplay


class MetadataDelta:
    """Represents the changes that records make to a :class:`MetadataImage`.

    Not thread-safe; owned by the task that replays. Per-domain deltas are created on first use.
    ``snapshot=True`` means the records restate a whole image (see :class:`AclsDelta`).
    ``backlog=True`` (a replay of many batches, :func:`aclog.replay.batches.replay_batches`):
    ACL records replayed one at a time onto a table are queued and replayed in runs
    (:meth:`AclTableReplay.replay`), so an error may be raised by a later call than the
    record's, at the latest by :meth:`settle` or :meth:`apply`, still naming its offset and
    still the first error in offset order; after an error such a delta is not to be applied.
    """

    def __init__(
        self, image: MetadataImage, *, snapshot: bool = False, backlog: bool = False
    ) -> None:
        self._image = image
        self._snapshot = snapshot
        self._backlog = backlog
        self._acls: AclsDelta | None = None
        # While set, every ACL replay goes through it (see aclog.image.acl_table_replay);
        # reading the ACL delta turns it into _acls.
        self._tables: AclTableReplay | None = None
        self._scram: ScramDelta | None = None
        self._request_context: RequestContextRecord | None = None

    @property
    def image(self) -> MetadataImage:
        """The image these changes apply to."""
        return self._image

    @property
    def acls_delta(self) -> AclsDelta | None:
        """The ACL changes, or ``None`` if no ACL record was replayed. Made on first read
        from the batches replayed onto the table (O(changes)); a catch-up never pays it."""
        self._release_tables()
        return self._acls

    @property
    def scram_delta(self) -> ScramDelta | None:
        """The SCRAM changes, or ``None`` if no SCRAM record was replayed."""
        return self._scram

    @property
    def request_context(self) -> RequestContextRecord | None:
        """The latest :class:`RequestContextRecord` replayed: who asked for the current batch."""
        return self._request_context

    def get_or_create_acls_delta(self) -> AclsDelta:
        """The ACL delta, created on first use; the caller may replay into it."""
        self._release_tables()
        return self._own_acls_delta()

    def _own_acls_delta(self) -> AclsDelta:
        if self._acls is None:
            self._acls = AclsDelta(self._image.acls, snapshot=self._snapshot)
        return self._acls

    def table_replay(self) -> AclTableReplay | None:
        """The replay onto the table, made at the first ACL record unless an ACL delta
        exists or the base image is held in a mapping (or this restates a non-empty one)."""
        fresh = self._tables is None and self._acls is None and not self._snapshot
        if fresh and self._image.acls.replays_onto_a_table:
            self._tables = _table_replay().over(self._image.acls, queue=self._backlog)
        return self._tables

    def _release_tables(self) -> None:
        """Turn the replay onto the table into the ACL delta (every record recorded in it)."""
        if self._tables is not None:
            self._acls = self._tables.delta()
            self._tables = None

    def get_or_create_scram_delta(self) -> ScramDelta:
        """The SCRAM delta, created on first use."""
        if self._scram is None:
            self._scram = ScramDelta(self._image.scram, snapshot=self._snapshot)
        return self._scram

    def replay(self, record: Record, offset: int) -> None:
        """Apply one record read at ``offset``; raise :class:`ReplayError` if it cannot apply."""
        handler = _HANDLERS.get(type(record))
        if handler is None:
            self._fail(ReplayError(f"unknown metadata record type {type(record).__name__}", offset))
        handler(self, record, offset)

    def replay_records(self, records: Iterable[Record], first_offset: int) -> None:
        """Apply ``records``, the first read at ``first_offset`` and the rest at the offsets
        after it, as :meth:`replay` would one by one (the loop of every log replay), whole
        batches in one go where they can (:func:`aclog.image.metadata_batches.replay_records`).
        """
        replay_records(self, records, first_offset)

    def replay_decoded(self, decoded: DecodedRecords, first_offset: int) -> None:
        """:meth:`replay_records` of ``decoded.records``, its ACL records taken from the
        columnar decoder's columns (:func:`aclog.image.metadata_batches.replay_decoded`)."""
        replay_decoded(self, decoded, first_offset)

    def replay_restated(self, records: Iterable[Record], offset: int) -> None:
        """Apply ``records`` that all stand at ``offset``: a snapshot's, restating an image.

        Into a snapshot delta of an empty image, the ACLs become a table in one go
        (:meth:`AclTableReplay.restated`; they are independent of the other types); if that
        refuses them, everything is replayed one by one, in order, which raises what
        :meth:`replay` raises first.
        """
        records = list(records)
        acls = [r for r in records if type(r) is AccessControlEntryRecord]
        fresh = self._snapshot and self._acls is None and self._tables is None
        if acls and fresh:
            self._tables = _table_replay().restated(self._image.acls, acls)
            if self._tables is not None:
                records = [r for r in records if type(r) is not AccessControlEntryRecord]
        self.replay_pairs(zip(repeat(offset), records))

    def restate_table(self, table: AclTable, others: Iterable[Record], offset: int) -> None:
        """:meth:`replay_restated` of a snapshot whose ACLs ``table`` holds (built in one go
        from its columns, see :meth:`AclTable.build`) and whose other records are ``others``,
        all standing at ``offset``, into a snapshot delta of the empty image; ``ValueError``
        into another delta (the caller restates records then)."""
        fresh = self._snapshot and self._acls is None and self._tables is None
        tables = _table_replay().of_snapshot_table(self._image.acls, table) if fresh else None
        if tables is None:
            raise ValueError("a table restates only a fresh snapshot delta of the empty image")
        self._tables = tables
        self.replay_pairs(zip(repeat(offset), others))

    def replay_pairs(self, pairs: Iterable[tuple[int, Record]]) -> None:
        """Apply each (offset, record) of ``pairs`` in order, as :meth:`replay` does."""
        handlers = _HANDLERS
        for offset, record in pairs:
            handler = handlers.get(type(record))
            if handler is None:
                self._fail(
                    ReplayError(f"unknown metadata record type {type(record).__name__}", offset)
                )
            handler(self, record, offset)

    def settle(self) -> None:
        """Replay the ACL records still queued (see :meth:`AclTableReplay.replay`); raises the
        first one's :class:`ReplayError`. Whoever stops replaying on an error of its own (a
        batch that does not decode) settles first, so that an earlier record's error wins."""
        if self._tables is not None:
            self._tables.settle()

    def _fail(self, error: ReplayError) -> NoReturn:
        """Raise ``error``, or the error of an ACL record queued before it (its offset is
        earlier): the first error is the one one-by-one replay raises."""
        self.settle()
        raise error

    def finish_snapshot(self) -> None:
        """Everything in the base image that the snapshot did not restate becomes a removal
        (nothing to do for a restate onto a table: its base image is empty)."""
        if self._tables is None:
            self.get_or_create_acls_delta().finish_snapshot()
        self.get_or_create_scram_delta().finish_snapshot()

    def apply(self, provenance: MetadataProvenance) -> MetadataImage:
        """The next image, at ``provenance``."""
        if self._snapshot:
            self.finish_snapshot()
        if self._tables is not None:
            acls = self._tables.image()
        else:
            acls = self._acls.apply() if self._acls is not None else self._image.acls
        scram = self._scram.apply() if self._scram is not None else self._image.scram
        return MetadataImage(provenance, acls, scram)

    def _replay_acl(
        self, record: AccessControlEntryRecord | RemoveAccessControlEntryRecord, offset: int
    ) -> None:
        tables = self._tables if self._tables is not None else self.table_replay()
        if tables is not None:
            tables.replay(record, offset)
        else:
            acls = self._acls if self._acls is not None else self._own_acls_delta()
            acls.replay(record, offset)

    def _replay_scram(
        self, record: UserScramCredentialRecord | RemoveUserScramCredentialRecord, offset: int
    ) -> None:
        try:
            self.get_or_create_scram_delta().replay(record, offset)
        except ReplayError as error:
            self._fail(error)

    def _replay_request_context(self, record: RequestContextRecord, offset: int) -> None:
        del offset
        self._request_context = record

    def _replay_nothing(self, record: NoOpRecord | LeaderChangeRecord, offset: int) -> None:
        """No-op and leader-change records change no ACL or SCRAM state."""
        del record, offset


_HANDLERS: dict[type[Any], Callable[[MetadataDelta, Any, int], None]] = {
    AccessControlEntryRecord: MetadataDelta._replay_acl,
    RemoveAccessControlEntryRecord: MetadataDelta._replay_acl,
    UserScramCredentialRecord: MetadataDelta._replay_scram,
    RemoveUserScramCredentialRecord: MetadataDelta._replay_scram,
    RequestContextRecord: MetadataDelta._replay_request_context,
    NoOpRecord: MetadataDelta._replay_nothing,
    LeaderChangeRecord: MetadataDelta._replay_nothing,
}
"""Record class -> handler: the one place where replay decides what a record does."""


def _table_replay() -> type[AclTableReplay]:
    """:class:`AclTableReplay`, imported when a replay first goes onto a table: numpy and
    pyarrow load then, not with every image (a small log replayed into a mapping needs
    neither, :func:`aclog.replay.rebuild.rebuild_image`)."""
    from aclog.image.acl_table_replay import AclTableReplay  # noqa: PLC0415

    return AclTableReplay


def apply_records(
    image: MetadataImage,
    records: Iterable[Record],
    first_offset: int,
    provenance: MetadataProvenance | None = None,
) -> MetadataImage:
    """Replay ``records`` (the first at ``first_offset``, the rest at the following offsets) onto
    ``image`` as one delta and return the new image.

    Without ``provenance`` the new image keeps the old epoch and timestamp and records the offset
    of the last record. Raises :class:`ReplayError` like :meth:`MetadataDelta.replay`.
    """
    delta = MetadataDelta(image)
    offset = first_offset - 1
    for offset, record in enumerate(records, start=first_offset):
        delta.replay(record, offset)
    if provenance is None:
        old = image.provenance
        provenance = MetadataProvenance(max(offset, old.last_offset), old.epoch, old.timestamp_ms)
    return delta.apply(provenance)
