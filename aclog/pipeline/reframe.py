"""Log pieces -> Avro object-container files that Spark's JVM Avro reader decodes.

Decoding in Python costs about 3 us a record per core; the JVM decodes Avro several times faster.
So instead of decoding, a task copies each record value as it is into an Avro container
(:func:`container_schema`; :mod:`aclog.pipeline.containers` writes the files, one per record
type): one container row per record type in a batch, holding the batch's header fields
(offsets, epoch, time, author) once and an array with an item per record of that type: its
position in the batch and its value as a union with one branch per (record type, version). The
frame bytes that start every value (``uvarint`` frame version, type and version) are valid Avro
``int`` varints, so each branch is the record's own writer schema with three leading ``int``
fields that consume the frame: a union item is the branch index followed by the value,
unchanged. The JVM then reads each body with the schema it was written with; turning older
versions into today's columns (Avro resolution: added fields take their defaults) is
:mod:`aclog.pipeline.avro`'s job.

Two kinds of value are not copied: a record type with secret fields (SCRAM credentials) is
written without the secrets at the current version (:mod:`aclog.pipeline.redact` cuts them out of
the bytes; what it cannot cut is decoded and encoded again), so no salt or key reaches the
staging files; and a value whose frame this build does not know is decoded by the codec, which
raises its :class:`~aclog.records.codec.RecordDecodeError`. Each container row ends with an
8-byte sentinel: a body that does not end where its value ends shifts the JVM's read of the
items after it, so that the sentinel no longer matches, and the reader fails the job (as
:mod:`aclog.records.bulk` does).

Thread-safe (pure functions over immutable tables and a table of varints that only grows).
Cost: per record two C-level lookups and a copy (about 1.7 us a record in all, with the cut of
the Kafka batch); per batch a few varints and one decode of its RequestContextRecord.
"""

from __future__ import annotations

import io
from bisect import bisect_left, bisect_right
from collections.abc import Iterator, Sequence
from functools import cache
from operator import itemgetter
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

from fastavro import parse_schema, schemaless_writer

from aclog.log import LogBatch, read_batches
from aclog.pipeline.columns import AUTHOR_FIELDS, author_of
from aclog.pipeline.redact import plan, redact
from aclog.pipeline.source import LogPiece
from aclog.records.bulk import decode_fields
from aclog.records.codec import decode_framed, frame_of, record_to_fields
from aclog.records.render import SECRET_FIELDS
from aclog.records.schemas import CURRENT_VERSIONS, known_versions, raw_schema
from aclog.records.types import RecordType, record_type_name
from aclog.varint import zigzag

SENTINEL = b"\xa5\x3c\x96\x0f\xe1\x5a\x78\xc3"
FRAME_FIELDS = ("frame_0", "frame_1", "frame_2")
"""The ``int`` fields that consume a value's frame (never read as columns)."""

Branch = tuple[RecordType, int]
_T = TypeVar("_T")


def _has_secrets(record_type: RecordType) -> bool:
    fields = raw_schema(record_type, CURRENT_VERSIONS[record_type])["fields"]
    return any(field["name"] in SECRET_FIELDS for field in fields)


@cache
def branches() -> tuple[Branch, ...]:
    """The union's branches, in order: every known (type, version), except that a type with
    secrets has one branch only, its current version without the secret fields."""
    out: list[Branch] = []
    for record_type in sorted(CURRENT_VERSIONS):
        versions = known_versions(record_type)
        if _has_secrets(record_type):
            versions = range(CURRENT_VERSIONS[record_type], CURRENT_VERSIONS[record_type] + 1)
        out.extend((record_type, version) for version in versions)
    return tuple(out)


def _renamed(schema: Any, suffix: str) -> Any:
    """``schema`` with every named type renamed ``NAME_suffix`` (a union may not hold two
    types of one name, and the versions of a record share theirs)."""
    if isinstance(schema, list):
        return [_renamed(item, suffix) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = dict(schema)
    if out.get("type") in ("record", "fixed", "enum"):
        out["name"] = f"{out['name']}_{suffix}"
        out.pop("doc", None)
    if "fields" in out:
        out["fields"] = [
            {**field, "type": _renamed(field["type"], suffix)} for field in out["fields"]
        ]
    for key in ("items", "values"):
        if key in out:
            out[key] = _renamed(out[key], suffix)
    return out


def branch_schema(record_type: RecordType, version: int) -> dict[str, Any]:
    """One branch: the frame fields, then the fields of (type, version) (secrets left out)."""
    schema = raw_schema(record_type, version)
    fields = [field for field in schema["fields"] if field["name"] not in SECRET_FIELDS]
    frame = [{"name": name, "type": "int"} for name in FRAME_FIELDS]
    renamed = _renamed({**schema, "fields": fields}, f"{int(record_type)}_v{version}")
    return {**renamed, "fields": frame + renamed["fields"]}


@cache
def container_schema() -> dict[str, Any]:
    """The schema of a container row: the records of one type of one log batch (see the module
    docstring)."""
    optional = ["null", "string"]
    item = {
        "type": "record",
        "name": "Item",
        "fields": [
            {"name": "position", "type": "long"},
            {"name": "record", "type": [branch_schema(*b) for b in branches()]},
        ],
    }
    return {
        "type": "record",
        "name": "Batch",
        "namespace": "aclog.pipeline",
        "fields": [
            {"name": "base_offset", "type": "long"},
            {"name": "last_offset", "type": "long"},
            {"name": "epoch", "type": "int"},
            {"name": "timestamp_ms", "type": "long"},
            *({"name": f"author_{name}", "type": optional} for name in AUTHOR_FIELDS),
            {"name": "records", "type": {"type": "array", "items": item}},
            {"name": "check", "type": {"type": "fixed", "name": "Check", "size": 8}},
        ],
    }


class _Tables(NamedTuple):
    short: dict[bytes, bytes]
    """3-byte frame -> branch index bytes (types without secrets)."""
    long: dict[bytes, bytes]
    """Frame of a type of 128 or more -> branch index bytes."""
    secret: dict[bytes, RecordType]
    """Frame of a type with secrets (any known version) -> its type."""
    redacted: dict[RecordType, bytes]
    """Type with secrets -> the branch index bytes of its redacted branch."""
    type_of: dict[bytes, str]
    """Branch index bytes -> the record type's name (a staged row's ``type`` folder)."""


@cache
def _tables() -> _Tables:
    tables = _Tables({}, {}, {}, {}, {})
    index = {branch: zigzag(i) for i, branch in enumerate(branches())}
    for (record_type, _), head in index.items():
        tables.type_of[head] = record_type_name(record_type)
    for record_type in CURRENT_VERSIONS:
        secret = _has_secrets(record_type)
        if secret:
            tables.redacted[record_type] = index[(record_type, CURRENT_VERSIONS[record_type])]
        for version in known_versions(record_type):
            frame = frame_of(record_type, version)
            if secret:
                tables.secret[frame] = record_type
            elif len(frame) == 3:
                tables.short[frame] = index[(record_type, version)]
            else:
                tables.long[frame] = index[(record_type, version)]
    return tables


@cache
def _redacted_schema(record_type: RecordType) -> Any:
    schema = raw_schema(record_type, CURRENT_VERSIONS[record_type])
    fields = [field for field in schema["fields"] if field["name"] not in SECRET_FIELDS]
    return parse_schema({**schema, "fields": fields})


_frame_of = itemgetter(slice(0, 3))


def batch_items(values: Sequence[bytes], first_offset: int) -> tuple[list[bytes], list[bytes]]:
    """(branch index bytes, value) of each of ``values`` (the records of a batch from
    ``first_offset``): a union item is the two joined."""
    heads = list(map(_tables().short.get, map(_frame_of, values)))
    values = list(values)
    if None in heads:
        _slow_items(values, heads, first_offset)
    return heads, values  # type: ignore[return-value]  # every None was replaced above


_POSITIONS: list[bytes] = []


def _positions(start: int, count: int) -> list[bytes]:
    """The zigzag varints of ``start .. start + count - 1``, from a table grown on demand."""
    while len(_POSITIONS) < start + count:
        _POSITIONS.append(zigzag(len(_POSITIONS)))
    return _POSITIONS[start : start + count]


def _by_frame(table: dict[bytes, _T], value: bytes) -> _T | None:
    """``table``'s entry for the frame ``value`` starts with (frames are 3 to 5 bytes, and no
    frame is the start of another: each of its varints says where it ends)."""
    for size in (3, 4, 5):
        found = table.get(value[:size])
        if found is not None:
            return found
    return None


def _gaps(heads: list[bytes | None]) -> Iterator[int]:
    """The indices of the ``None`` entries of ``heads``: ``list.index`` finds each in C, so
    Python steps once per gap, not once per record."""
    i = -1
    while True:
        try:
            i = heads.index(None, i + 1)
        except ValueError:
            return
        yield i


def _slow_items(values: list[bytes], heads: list[bytes | None], first_offset: int) -> None:
    """Fill in the branch of values with a long frame, re-encode those with secrets, and let
    the codec raise for an unknown frame."""
    tables = _tables()
    secret: dict[RecordType, list[int]] = {}
    for i in _gaps(heads):
        value = values[i]
        found = _by_frame(tables.long, value)
        if found is not None:
            heads[i] = found
            continue
        kind = _by_frame(tables.secret, value)
        if kind is None:
            kind = decode_framed(value, first_offset + i).record_type  # raises: unknown frame
        secret.setdefault(kind, []).append(i)
    for record_type, indices in secret.items():
        _redact(values, heads, indices, record_type, first_offset)


def _redact(
    values: list[bytes],
    heads: list[bytes | None],
    indices: list[int],
    record_type: RecordType,
    first_offset: int,
) -> None:
    """Replace ``values[i]`` for each of ``indices`` (all of ``record_type``, which has
    secrets) by its value without them: cut out of the bytes where it can be, else decoded (the
    codec raises for a bad value, at its offset) and encoded again."""
    redacted = _tables().redacted[record_type]
    frame = frame_of(record_type, CURRENT_VERSIONS[record_type])
    fields = plan(record_type)
    rest: list[int] = []
    for i in indices:
        cut = redact(values[i], frame, fields) if fields and values[i].startswith(frame) else None
        if cut is None:
            rest.append(i)
        else:
            values[i], heads[i] = cut, redacted
    schema = _redacted_schema(record_type)
    out = io.BytesIO()
    for i in rest:
        (item,), _ = decode_fields([values[i]], first_offset + i)
        out.seek(0)
        out.truncate()
        out.write(frame)
        schemaless_writer(out, schema, item)
        values[i], heads[i] = out.getvalue(), redacted


def _optional(value: str | None) -> bytes:
    if value is None:
        return b"\x00"
    data = value.encode("utf-8")
    return b"\x02" + zigzag(len(data)) + data


def batch_rows(batch: LogBatch, skip: int) -> list[tuple[str, int, bytes]]:
    """The container rows of ``batch`` without its first ``skip`` records: (type name, record
    count, row) for each record type in the batch. A row is the batch's fields, an array of
    (position, union item), one per record of that type, and the sentinel. Python builds it
    with C-level passes and one join, not a loop."""
    count = len(batch.values) - skip
    author = author_of(*_first(batch))
    shared = b"".join(
        (
            zigzag(batch.base_offset),
            zigzag(batch.last_offset),
            zigzag(batch.epoch),
            zigzag(batch.timestamp_ms),
            *map(_optional, author),
        )
    )
    heads, values = batch_items(batch.values[skip:], batch.base_offset + skip)
    positions = _positions(skip, count)
    distinct = sorted(dict.fromkeys(heads))
    type_of = _tables().type_of
    if len({type_of[head] for head in distinct}) == 1:
        return [(type_of[distinct[0]], count, _row(shared, positions, heads, values))]
    # Sort the records by branch (stable: offset order within one) and cut the runs out: about
    # 0.2 us a record in C-level passes, where a mask per type costs twice that. The versions
    # of one type are neighbours in the branch order, so each type is one run.
    take = itemgetter(*sorted(range(count), key=heads.__getitem__))
    heads, positions, values = list(take(heads)), list(take(positions)), list(take(values))
    runs: dict[str, tuple[int, int]] = {}
    for head in distinct:
        low, high = bisect_left(heads, head), bisect_right(heads, head)
        name = type_of[head]
        runs[name] = (runs.get(name, (low, high))[0], high)
    return [
        (name, high - low, _row(shared, positions[low:high], heads[low:high], values[low:high]))
        for name, (low, high) in runs.items()
    ]


def _row(shared: bytes, positions: list[bytes], heads: list[bytes], values: list[bytes]) -> bytes:
    # An array is its item count, the items, and a count of 0 that ends it.
    count = len(values)
    parts: list[bytes] = [shared, zigzag(count), *[b""] * (3 * count), b"\x00", SENTINEL]
    parts[2:-2:3] = positions
    parts[3:-2:3] = heads
    parts[4:-2:3] = values
    return b"".join(parts)


def _first(batch: LogBatch) -> tuple[Any, dict[str, Any]]:
    value = batch.values[0]
    if _by_frame(_tables().long, value) is None:
        return (None, None), {}  # not a RequestContextRecord: no author to read
    decoded = decode_framed(value, batch.base_offset)
    return decoded.kind, record_to_fields(decoded.record)


def piece_rows(piece: LogPiece) -> Iterator[tuple[LogBatch, list[tuple[str, int, bytes]]]]:
    """Each batch the piece owns (see ``LogPiece``) that keeps a record, with its container
    rows (:func:`batch_rows`)."""
    low, high, start = piece.low, piece.high, piece.from_offset
    for batch in read_batches(Path(piece.directory), max(low, start), high):
        base = batch.base_offset
        if base < low:
            continue
        if high is not None and base >= high:
            break
        skip = max(0, start - base)
        if skip < len(batch.values):
            yield batch, batch_rows(batch, skip)
