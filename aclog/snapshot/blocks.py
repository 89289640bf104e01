"""Decodes a snapshot's records block by block: one fastavro call per container block.

An Avro container block holds its records back to back, exactly like the items of an Avro
array, so a block's bytes framed as an array (``count | bytes | 0``) decode in ONE fastavro
call instead of one per record (fastavro's per-record setup costs about a fifth of a record's
decode). The schemas are the file's (writer) and, for an older file, the current snapshot
schema (reader), so older versions resolve to today's exactly as fastavro's own reader does.
The records are built by the codec's builders (:func:`aclog.records.codec.record_builder`).

Thread-safe (no shared mutable state; schemas are parsed once per schema text). Cost: one
fastavro call per block (about 16 KB) plus one builder call per record.
"""

from __future__ import annotations

import io
import json
from collections import Counter
from collections.abc import Iterator
from functools import cache
from operator import itemgetter
from pathlib import Path
from typing import IO, Any

import fastavro
from fastavro import parse_schema, schemaless_reader

from aclog.records.codec import record_builder
from aclog.records.types import Record
from aclog.snapshot.errors import SnapshotCorruptError
from aclog.snapshot.schema import BY_FULL_NAME, SNAPSHOT_SCHEMA
from aclog.varint import zigzag

_name_of = itemgetter(0)
_BUILDERS = {name: record_builder(member.record_type) for name, member in BY_FULL_NAME.items()}


def decode_blocks(
    path: Path, file: IO[bytes], counts: dict[str, int], *, current: bool
) -> Iterator[list[Record]]:
    """The records of each block of the container ``file`` (positioned at its start), adding
    each record to ``counts`` by class name. Raises :class:`SnapshotCorruptError` for a record
    type that ``counts`` does not list or a block that does not hold its stated count; lets
    fastavro's errors through (the caller names the file)."""
    blocks: Any = fastavro.block_reader(file)
    writer, reader = _array_schemas(blocks.metadata["avro.schema"], current)
    for block in blocks:
        data = block.bytes_.getvalue()
        buffer = b"".join((zigzag(block.num_records), data, b"\x00"))
        items = schemaless_reader(io.BytesIO(buffer), writer, reader, return_record_name=True)
        if not isinstance(items, list) or len(items) != block.num_records:
            raise SnapshotCorruptError(
                path, f"a block does not hold its {block.num_records} records"
            )
        yield _build(path, items, counts)


def _build(
    path: Path, items: list[tuple[str, dict[str, Any]]], counts: dict[str, int]
) -> list[Record]:
    for full_name, found in Counter(map(_name_of, items)).items():
        member = BY_FULL_NAME.get(full_name)
        if member is None or member.name not in counts:
            raise SnapshotCorruptError(
                path, f"it holds a {full_name} record, which its header does not list"
            )
        counts[member.name] += found
    return [_BUILDERS[name](fields) for name, fields in items]


@cache
def _array_schemas(writer_text: str, current: bool) -> tuple[Any, Any]:
    """Parsed array schemas (writer, reader or ``None``) whose items are the file's union."""
    writer = parse_schema({"type": "array", "items": json.loads(writer_text)})
    if current:
        return writer, None
    return writer, parse_schema({"type": "array", "items": SNAPSHOT_SCHEMA})
