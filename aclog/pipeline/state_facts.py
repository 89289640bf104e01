"""The first pass of the task-side ``state``: what each piece of the input tells about the state,
small enough to send to the driver, and the driver's combination of it.

Each task decodes one piece (a segment piece or a snapshot, as the ``aclog`` source plans them)
and returns :class:`PieceFacts`: its ACL removals (id words and offsets), its SCRAM records (few),
its last row (the provenance candidate) and, for a cut, the base offset of its first batch past
the point, read no further. :func:`combine` applies the rules of
:func:`~aclog.pipeline.state.cut`, :func:`~aclog.pipeline.survey.survey` and
:func:`~aclog.pipeline.state.user_state` to them: the stop is the first batch past the point in
the whole input (whole batches; a later batch with an earlier time is not taken), removals and
credentials count below it, the provenance is the newest row below it, and a credential is
present when its newest record ``(offset, position)`` is an addition.

Thread-safe (no shared state). Cost: a task decodes its piece (the columns named here only);
combining sorts the removals once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from pyspark.sql.datasource import InputPartition

from aclog.pipeline.pieces import LogPiece, SnapshotPiece
from aclog.pipeline.removed_ids import RemovedIds, id_words, no_words
from aclog.pipeline.schema import ARROW_SCHEMA, REMOVE_ACL_CODE, REMOVE_SCRAM_CODE, SCRAM_CODE
from aclog.pipeline.source import AclogReader, log_chunks, snapshot_chunks
from aclog.pipeline.state_json import MECHANISM_ORDER
from aclog.pipeline.survey import Survey

_CREDENTIAL_COLUMNS = (
    "offset",
    "position",
    "type_code",
    "user",
    "mechanism",
    "iterations",
    "timestamp_ms",
    "author_principal",
)
_SCHEMA = pa.schema(
    ARROW_SCHEMA.field(name)
    for name in dict.fromkeys(
        ("epoch", "batch_base_offset", "batch_last_offset", *_CREDENTIAL_COLUMNS)
    )
)

USER_STATE_SCHEMA = pa.schema(
    [
        pa.field("user", pa.string()),
        pa.field("mechanism", pa.string()),
        pa.field("iterations", pa.int32()),
        pa.field("updated_offset", pa.int64()),
        pa.field("updated_time", pa.timestamp("us", tz="UTC")),
        pa.field("updated_by", pa.string()),
    ]
)
"""The columns of ``OUT/users``, as Spark writes :func:`~aclog.pipeline.state.user_state`."""


@dataclass(frozen=True)
class Point:
    """The point a state is as of: ``None`` for both is the end of the input."""

    at_offset: int | None = None
    at_time_ms: int | None = None

    def first_past(self, batch: pa.RecordBatch) -> int | None:
        """The base offset of the first log batch among ``batch``'s rows (in offset order)
        that ends after ``at_offset`` or was appended after ``at_time_ms``; ``None``: none."""
        past = np.zeros(batch.num_rows, dtype=bool)
        if self.at_offset is not None:
            last = batch.column("batch_last_offset").to_numpy(zero_copy_only=False)
            past |= last > self.at_offset
        if self.at_time_ms is not None:
            past |= batch.column("timestamp_ms").to_numpy() > self.at_time_ms
        first = np.flatnonzero(past)[:1]
        if len(first) == 0:
            return None
        return int(batch.column("batch_base_offset")[int(first[0])].as_py())


Credential = tuple[int, int, int, str, str, int | None, int, str | None]
"""A SCRAM record's row: :data:`_CREDENTIAL_COLUMNS`."""


@dataclass
class PieceFacts:
    """What one piece tells (see the module docstring): removals as id words and offsets,
    credential rows, ``last`` (offset, epoch, timestamp) of its last row, and ``past``."""

    words: Any = field(default_factory=no_words)
    removed_at: Any = field(default_factory=lambda: np.empty(0, dtype=np.int64))
    credentials: list[Credential] = field(default_factory=list)
    last: tuple[int, int, int] | None = None
    past: int | None = None

    def add(self, batch: pa.RecordBatch, ids: pa.Array) -> None:
        """Take in rows of the piece (``ids``: the decoder's 16-byte ``id`` of each row)."""
        if batch.num_rows == 0:
            return
        codes = batch.column("type_code")
        removal = pc.equal(codes, REMOVE_ACL_CODE)
        if pc.any(removal).as_py():
            self.words = np.concatenate([self.words, id_words(ids.filter(removal))])
            offsets = batch.column("offset").filter(removal).to_numpy()
            self.removed_at = np.concatenate([self.removed_at, offsets])
        scram = pc.is_in(codes, pa.array([SCRAM_CODE, REMOVE_SCRAM_CODE], pa.int32()))
        if pc.any(scram).as_py():
            rows = batch.filter(scram).select(list(_CREDENTIAL_COLUMNS))
            columns = [column.to_pylist() for column in rows.columns]
            self.credentials += list(zip(*columns, strict=True))
        end = batch.num_rows - 1
        self.last = tuple(  # type: ignore[assignment]
            int(batch.column(name)[end].as_py()) for name in ("offset", "epoch", "timestamp_ms")
        )


FACT_SCHEMA = _SCHEMA
"""The source columns :func:`piece_facts` reads (a wider ``schema`` must hold them)."""


def _ignore_rows(batch: pa.RecordBatch, ids: pa.Array) -> None:
    del batch, ids


def piece_facts(
    reader: AclogReader,
    point: Point,
    piece: InputPartition,
    schema: pa.Schema = FACT_SCHEMA,
    on_rows: Callable[[pa.RecordBatch, pa.Array], None] = _ignore_rows,
) -> PieceFacts:
    """The facts of one piece (runs in a task). A log piece stops at its first batch past
    ``point``; a snapshot is read whole (the cut is the log's). ``on_rows`` sees every batch
    of rows before that (``schema``'s columns, at least :data:`FACT_SCHEMA`'s) and their
    16-byte ids: for a caller that keeps more of them, decoding the piece once."""
    facts = PieceFacts()
    if isinstance(piece, SnapshotPiece):
        chunks = snapshot_chunks(piece.path, reader.batch_rows)
    elif isinstance(piece, LogPiece):
        chunks = log_chunks(piece, reader.batch_rows)
    else:  # pragma: no cover - only what AclogReader.partitions() plans reaches here
        raise TypeError(f"unexpected piece {piece!r}")
    for chunk in chunks:
        batch, ids = chunk.to_batch(schema), chunk.raw("id")
        if isinstance(piece, LogPiece):
            facts.past = point.first_past(batch)
            if facts.past is not None:
                before = pc.less(batch.column("offset"), facts.past)
                batch, ids = batch.filter(before), ids.filter(before)
        facts.add(batch, ids)
        on_rows(batch, ids)
        if facts.past is not None:
            break
    return facts


@dataclass(frozen=True)
class Found:
    """The pieces' facts combined: ``stop`` (log rows at or past it are not in the state;
    ``None``: no cut), the removals below it, the users table and the survey."""

    stop: int | None
    removed: RemovedIds
    users: pa.Table
    survey: Survey


def combine(pieces: list[PieceFacts]) -> Found:
    """The state's facts from every piece's (see the module docstring)."""
    stops = [facts.past for facts in pieces if facts.past is not None]
    stop = min(stops) if stops else None
    limit = np.iinfo(np.int64).max if stop is None else stop
    words = np.concatenate([no_words(), *(facts.words for facts in pieces)])
    at = np.concatenate([np.empty(0, np.int64), *(facts.removed_at for facts in pieces)])
    below = at < limit
    lasts = [facts.last for facts in pieces if facts.last is not None and facts.last[0] < limit]
    newest = max(lasts, default=None)  # rows of one offset share their epoch and time
    removals = int(below.sum())
    survey = Survey(removals) if newest is None else Survey(removals, *newest)
    credentials = [row for facts in pieces for row in facts.credentials if row[0] < limit]
    return Found(stop, RemovedIds.of(words[below], at[below]), user_table(credentials), survey)


def user_table(credentials: list[Credential]) -> pa.Table:
    """The credentials present after ``credentials`` (SCRAM rows, any order): per (user,
    mechanism) the newest row by (offset, position) decides. Ordered as ``aclog replay``
    lists them (user, then mechanism)."""
    newest: dict[tuple[str, str], Credential] = {}
    for row in sorted(credentials, key=lambda row: (row[0], row[1])):
        newest[(row[3], row[4])] = row
    present = sorted(
        (row for row in newest.values() if row[2] == SCRAM_CODE),
        key=lambda row: (row[3], MECHANISM_ORDER.get(row[4], 99)),
    )
    columns = [
        [row[3] for row in present],
        [row[4] for row in present],
        [row[5] for row in present],
        [row[0] for row in present],
        [row[6] * 1000 for row in present],
        [row[7] for row in present],
    ]
    return pa.Table.from_arrays(
        [pa.array(c, f.type) for c, f in zip(columns, USER_STATE_SCHEMA, strict=True)],
        schema=USER_STATE_SCHEMA,
    )
