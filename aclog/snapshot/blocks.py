"""Decodes a snapshot's records block by block: one fastavro call per container block.

An Avro container block holds its records back to back, exactly like the items of an Avro
array, so a block's bytes framed as an array (``count | bytes | 0``) decode in ONE fastavro
call instead of one per record (fastavro's per-record setup costs about a fifth of a record's
decode). The schemas are the file's (writer) and, for an older file, the current snapshot
schema of the file's format (reader), so older versions resolve to today's exactly as
fastavro's own reader does. Rows are built by the codec's builders
(:func:`aclog.records.codec.record_builder`), chunks of ACL columns (format 2) by
:func:`aclog.snapshot.acl_columns.decode_chunk` (:func:`decode_blocks`), or left as columns
for the ACL table by :mod:`aclog.snapshot.contents`, which reads the same items
(:func:`decode_items`).

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
ACL_NAME = "AccessControlEntryRecord"
"""The class name ACLs are counted under."""
_BUILDERS = {name: record_builder(member.record_type) for name, member in BY_FULL_NAME.items()}
# Each union branch a container item can be: the member it holds records of, and whether the
# item is one record (a row) or a chunk of ACL columns.
_BRANCHES: dict[str, tuple[Member, bool]] = {
    **{name: (member, False) for name, member in BY_FULL_NAME.items()},
    acl_columns.FULL_NAME: (BY_NAME[ACL_NAME], True),
}


def decode_items(
    path: Path, file: IO[bytes], counts: dict[str, int], *, current: bool, format_version: str
) -> Iterator[_Items]:
    """Each block's items of the container ``file`` (positioned at its start) as
    ``(union branch full name, field values)``, adding each row to ``counts`` by class name
    (a chunk of ACL columns is counted by whoever decodes it). ``current`` says the file's
    schema versions are this build's; ``format_version`` is the header's (rows or columns).
    Raises :class:`SnapshotCorruptError` for a record type that ``counts`` does not list or a
    block that does not hold its stated count; lets fastavro's errors through (the caller
    names the file)."""
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
        _count_rows(path, items, counts)
        yield items


def decode_blocks(
    path: Path, file: IO[bytes], counts: dict[str, int], *, current: bool, format_version: str
) -> Iterator[list[Record]]:
    """The records of each block of :func:`decode_items`, chunks decoded to their ACL records
    (and counted); lets the column decoder's errors through as well."""
    for items in decode_items(path, file, counts, current=current, format_version=format_version):
        yield _records(items, counts)


def is_chunk(full_name: str) -> bool:
    """Whether an item of that union branch is a chunk of ACL columns (else one record)."""
    return full_name == acl_columns.FULL_NAME


def build_row(full_name: str, fields: dict[str, Any]) -> Record:
    """The record of a row item (not a chunk): the codec's builder of its branch."""
    return _BUILDERS[full_name](fields)


def _count_rows(path: Path, items: _Items, counts: dict[str, int]) -> None:
    found = Counter(map(_name_of, items))
    for full_name, number in found.items():
        branch = _BRANCHES.get(full_name)
        if branch is None or branch[0].name not in counts:
            raise SnapshotCorruptError(
                path, f"it holds a {full_name} record, which its header does not list"
            )
        if not branch[1]:  # rows: one record each; chunks are counted once decoded
            counts[branch[0].name] += number


def _records(items: _Items, counts: dict[str, int]) -> list[Record]:
    if acl_columns.FULL_NAME not in map(_name_of, items):  # C-level: no call per item
        return [_BUILDERS[name](fields) for name, fields in items]
    records: list[Record] = []
    for full_name, fields in items:
        if is_chunk(full_name):
            chunk = acl_columns.decode_chunk(fields)
            records += chunk
            counts[ACL_NAME] += len(chunk)
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
