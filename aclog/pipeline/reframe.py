"""Log pieces -> Avro object-container files that Spark's JVM Avro reader decodes.

Decoding in Python costs about 3 us a record per core; the JVM decodes Avro several times faster.
So instead of decoding, a task copies each record value as it is into an Avro container
(:func:`container_schema`): one container row per record, holding its batch's header fields
(offsets, epoch, time, author), its position in the batch and its value as a union with one
branch per (record type, version). The frame bytes that start every value (``uvarint`` frame
version, type and version) are valid Avro ``int`` varints, so each branch is the record's own
writer schema with three leading ``int`` fields that consume the frame: an item is the branch
index followed by the value, unchanged. The JVM then reads each body with the schema it was
written with; turning older versions into today's columns (Avro resolution: added fields take
their defaults) is :mod:`aclog.pipeline.avro`'s job.

Two kinds of value are not copied: a record type with secret fields (SCRAM credentials) is
decoded here and re-encoded without the secrets at the current version (so no salt or key reaches
the staging files), and a value whose frame this build does not know is decoded by the codec,
which raises its :class:`~aclog.records.codec.RecordDecodeError`. Each container row ends with an
8-byte sentinel: a body that does not end where its value ends shifts the JVM's read so that the
sentinel no longer matches, and the reader fails the job (as :mod:`aclog.records.bulk` does).

Thread-safe (pure functions over immutable tables and a table of varints that only grows).
Cost: per record two C-level lookups and a copy; per batch a few varints (and one decode of its
RequestContextRecord).
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterator, Sequence
from functools import cache
from operator import itemgetter
from pathlib import Path
from typing import Any

from fastavro import parse_schema, schemaless_writer
from fastavro import writer as avro_writer

from aclog.log import LogBatch, read_batches
from aclog.pipeline.columns import AUTHOR_FIELDS, author_of
from aclog.pipeline.source import LogPiece
from aclog.records.bulk import decode_fields
from aclog.records.codec import decode_framed, frame_of, record_to_fields
from aclog.records.render import SECRET_FIELDS
from aclog.records.schemas import CURRENT_VERSIONS, known_versions, raw_schema
from aclog.records.types import RecordType
from aclog.varint import zigzag

SENTINEL = b"\xa5\x3c\x96\x0f\xe1\x5a\x78\xc3"
FRAME_FIELDS = ("frame_0", "frame_1", "frame_2")
"""The ``int`` fields that consume a value's frame (never read as columns)."""
BLOCK_BYTES = 4 << 20
"""About how many bytes of rows one container block holds."""

Branch = tuple[RecordType, int]


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
    """The schema of a container row: one log batch (see the module docstring)."""
    optional = ["null", "string"]
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
            {"name": "position", "type": "long"},
            {"name": "record", "type": [branch_schema(*b) for b in branches()]},
            {"name": "check", "type": {"type": "fixed", "name": "Check", "size": 8}},
        ],
    }


@cache
def _tables() -> tuple[dict[bytes, bytes | None], dict[bytes, bytes], dict[RecordType, bytes]]:
    """(3-byte frame -> branch index bytes, or None for a type with secrets), (frame of a type
    of 128 or more -> branch index bytes), (type with secrets -> its branch index bytes)."""
    short: dict[bytes, bytes | None] = {}
    long: dict[bytes, bytes] = {}
    redacted: dict[RecordType, bytes] = {}
    index = {branch: zigzag(i) for i, branch in enumerate(branches())}
    for record_type in CURRENT_VERSIONS:
        secret = _has_secrets(record_type)
        if secret:
            redacted[record_type] = index[(record_type, CURRENT_VERSIONS[record_type])]
        for version in known_versions(record_type):
            frame = frame_of(record_type, version)
            branch = None if secret else index[(record_type, version)]
            if len(frame) == 3:
                short[frame] = branch
            elif branch is not None:
                long[frame] = branch
    return short, long, redacted


@cache
def _redacted_schema(record_type: RecordType) -> Any:
    schema = raw_schema(record_type, CURRENT_VERSIONS[record_type])
    fields = [field for field in schema["fields"] if field["name"] not in SECRET_FIELDS]
    return parse_schema({**schema, "fields": fields})


_frame_of = itemgetter(slice(0, 3))


def batch_items(values: Sequence[bytes], first_offset: int) -> tuple[list[bytes], list[bytes]]:
    """(branch index bytes, value) of each of ``values`` (the records of a batch from
    ``first_offset``): a union item is the two joined."""
    short, _, _ = _tables()
    heads = list(map(short.get, map(_frame_of, values)))
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


def _slow_items(values: list[bytes], heads: list[bytes | None], first_offset: int) -> None:
    """Fill in the branch of values with a long frame, re-encode those with secrets, and let
    the codec raise for an unknown frame."""
    _, long, redacted = _tables()
    secret: dict[RecordType, list[int]] = {}
    for i, head in enumerate(heads):
        if head is not None:
            continue
        value = values[i]
        found = long.get(value[:4]) or long.get(value[:5])
        if found is not None:
            heads[i] = found
            continue
        kind = decode_framed(value, first_offset + i)  # raises for an unknown frame
        secret.setdefault(kind.record_type, []).append(i)
    for record_type, indices in secret.items():
        fields, _ = decode_fields([values[i] for i in indices], first_offset + indices[0])
        frame = frame_of(record_type, CURRENT_VERSIONS[record_type])
        schema = _redacted_schema(record_type)
        for i, item in zip(indices, fields, strict=True):
            out = io.BytesIO()
            out.write(frame)
            schemaless_writer(out, schema, item)
            values[i], heads[i] = out.getvalue(), redacted[record_type]


def _optional(value: str | None) -> bytes:
    if value is None:
        return b"\x00"
    data = value.encode("utf-8")
    return b"\x02" + zigzag(len(data)) + data


def batch_rows(batch: LogBatch, skip: int) -> bytes:
    """The container rows of ``batch`` without its first ``skip`` records, one per record:
    the batch's fields (the same bytes each time), the position, the union item, the
    sentinel. Python builds them with slice assignments and one join, not a loop."""
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
    parts: list[bytes] = [SENTINEL] * (5 * count)
    parts[0::5] = [shared] * count
    parts[1::5] = _positions(skip, count)
    parts[2::5] = heads
    parts[3::5] = values
    return b"".join(parts)


def _first(batch: LogBatch) -> tuple[Any, dict[str, Any]]:
    value = batch.values[0]
    if value[:4] not in _tables()[1] and value[:5] not in _tables()[1]:
        return (None, None), {}  # not a RequestContextRecord: no author to read
    decoded = decode_framed(value, batch.base_offset)
    return decoded.kind, record_to_fields(decoded.record)


def piece_rows(piece: LogPiece) -> Iterator[tuple[int, bytes]]:
    """(record count, container row) of each batch the piece owns (see ``LogPiece``)."""
    low, high, start = piece.low, piece.high, piece.from_offset
    for batch in read_batches(Path(piece.directory), max(low, start), high):
        base = batch.base_offset
        if base < low:
            continue
        if high is not None and base >= high:
            break
        skip = max(0, start - base)
        if skip < len(batch.values):
            yield len(batch.values) - skip, batch_rows(batch, skip)


def container_header() -> tuple[bytes, bytes]:
    """(the container's header bytes, its 16-byte sync marker)."""
    out = io.BytesIO()
    avro_writer(out, parse_schema(container_schema()), [], codec="null")
    header = out.getvalue()
    return header, header[-16:]


def write_container(piece: LogPiece, path: str) -> int:
    """Write the piece's batches as a container file at ``path``; returns its record count."""
    header, sync = container_header()
    total = 0
    tmp = f"{path}.tmp"
    with open(tmp, "wb") as out:
        out.write(header)
        rows: list[bytes] = []
        size = in_block = 0
        for count, chunk in piece_rows(piece):
            total += count
            in_block += count
            rows.append(chunk)
            size += len(chunk)
            if size >= BLOCK_BYTES:
                _write_block(out, rows, in_block, sync)
                rows, size, in_block = [], 0, 0
        if rows:
            _write_block(out, rows, in_block, sync)
    os.replace(tmp, path)
    return total


def _write_block(out: Any, rows: list[bytes], count: int, sync: bytes) -> None:
    body = b"".join(rows)
    out.write(zigzag(count) + zigzag(len(body)))
    out.write(body)
    out.write(sync)
