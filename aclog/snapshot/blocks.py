"""Decodes a snapshot's records block by block: one fastavro call per container block.

An Avro container block holds its records back to back, exactly like the items of an Avro
array, so a block's bytes framed as an array (``count | bytes | 0``) decode in ONE fastavro
call instead of one per record (fastavro's per-record setup costs about a fifth of a record's
decode). The schemas are the file's (writer) and, for an older file, the current snapshot
schema of the file's format (reader), so older versions resolve to today's exactly as
fastavro's own reader does. Rows are built by the codec's builders
(:func:`aclog.records.codec.record_builder`), chunks of ACL columns (format 2) by
:func:`aclog.snapshot.acl_columns.decode_chunk`.

Thread-safe (no shared mutable state; schemas are parsed once per schema text). Cost: one
fastavro call per block (about 16 KB, or one column chunk) plus one builder call per row
record, or about 15 C-level calls per ACL of a chunk.
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
from aclog.snapshot import acl_columns
from aclog.snapshot.errors import SnapshotCorruptError
from aclog.snapshot.header import ROWS_FORMAT
from aclog.snapshot.schema import BY_FULL_NAME, BY_NAME, COLUMN_SCHEMA, SNAPSHOT_SCHEMA, Member
from aclog.varint import zigzag

_Items = list[tuple[str, dict[str, Any]]]
_name_of = itemgetter(0)
_ACL_NAME = "AccessControlEntryRecord"
_BUILDERS = {name: record_builder(member.record_type) for name, member in BY_FULL_NAME.items()}
# Each union branch a container item can be: the member it holds records of, and whether the
# item is one record (a row) or a chunk of ACL columns.
_BRANCHES: dict[str, tuple[Member, bool]] = {
    **{name: (member, False) for name, member in BY_FULL_NAME.items()},
    acl_columns.FULL_NAME: (BY_NAME[_ACL_NAME], True),
}


def decode_blocks(
    path: Path, file: IO[bytes], counts: dict[str, int], *, current: bool, format_version: str
) -> Iterator[list[Record]]:
    """The records of each block of the container ``file`` (positioned at its start), adding
    each record to ``counts`` by class name. ``current`` says the file's schema versions are
    this build's; ``format_version`` is the header's (rows or columns). Raises
    :class:`SnapshotCorruptError` for a record type that ``counts`` does not list or a block
    that does not hold its stated count; lets fastavro's and the column decoder's errors
    through (the caller names the file)."""
    blocks: Any = fastavro.block_reader(file)
    writer, reader = _array_schemas(blocks.metadata["avro.schema"], current, format_version)
    for block in blocks:
        data = block.bytes_.getvalue()
        buffer = b"".join((zigzag(block.num_records), data, b"\x00"))
        items = schemaless_reader(io.BytesIO(buffer), writer, reader, return_record_name=True)
        if not isinstance(items, list) or len(items) != block.num_records:
            raise SnapshotCorruptError(
                path, f"a block does not hold its {block.num_records} records"
            )
        yield _build(path, items, counts)


def _build(path: Path, items: _Items, counts: dict[str, int]) -> list[Record]:
    found = Counter(map(_name_of, items))
    for full_name, number in found.items():
        branch = _BRANCHES.get(full_name)
        if branch is None or branch[0].name not in counts:
            raise SnapshotCorruptError(
                path, f"it holds a {full_name} record, which its header does not list"
            )
        if not branch[1]:  # rows: one record each; chunks are counted once decoded
            counts[branch[0].name] += number
    if acl_columns.FULL_NAME not in found:
        return [_BUILDERS[name](fields) for name, fields in items]
    records: list[Record] = []
    for full_name, fields in items:
        if full_name == acl_columns.FULL_NAME:
            chunk = acl_columns.decode_chunk(fields)
            records += chunk
            counts[_ACL_NAME] += len(chunk)
        else:
            records.append(_BUILDERS[full_name](fields))
    return records


@cache
def _array_schemas(writer_text: str, current: bool, format_version: str) -> tuple[Any, Any]:
    """Parsed array schemas (writer, reader or ``None``) whose items are the file's union."""
    writer = parse_schema({"type": "array", "items": json.loads(writer_text)})
    if current:
        return writer, None
    union = SNAPSHOT_SCHEMA if format_version == ROWS_FORMAT else COLUMN_SCHEMA
    return writer, parse_schema({"type": "array", "items": union})
