"""ACLs as columns: the layout that snapshot format 2 stores ACL records in.

A chunk of up to :data:`CHUNK_ACLS` ACL records is ONE Avro record, ``aclog.snapshot.AclColumns``,
whose fields are the ACL fields as columns of fixed-width values in ``bytes``:

- ``count``: how many ACLs the chunk holds;
- ``id``: each ACL's 16-byte UUID, most significant byte first, back to back;
- ``resource_type``, ``pattern_type``, ``operation``, ``permission_type``: one byte per ACL,
  its Kafka code;
- ``strings``: the chunk's ``string_count`` distinct strings in UTF-8, each but the last
  followed by ``separator``, a character that none of them holds (NUL, unless one does);
- ``resource_name``, ``principal``, ``host``: each ACL's index into those strings, unsigned
  32-bit little-endian.

Why: a snapshot is loaded at every broker start, and decoding a million per-ACL Avro records
costs one fastavro field read (a Python-level ``read`` call) per field, plus a dict per record,
about three quarters of the load. Columns of fixed-width values decode with a handful of C-level
calls per chunk (``array.frombytes``, ``int.from_bytes`` over slices, the codes' enum members
by one numpy gather, as the log's decoder maps them: ``aclog.records.column_records``), and
the records are put together by ``aclog.records.build.acls_from_columns`` (slot setters mapped
over the columns), so no Python function runs per record. Repeated strings (principals, hosts)
are stored and decoded once per chunk, and the records share one string object each, whose hash
is then computed once.

The columns are exactly the fields of :class:`AccessControlEntryRecord` version 0: a new ACL
schema version needs a new layout (and snapshot format), which a test checks.

Thread-safe (no shared mutable state). Cost per ACL: about 15 C-level calls to decode, and a
few dict and attribute lookups to encode.
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import TYPE_CHECKING, Any, cast

# The one definition of building ACL records from columns of field values (slot setters, enum
# tables; an unknown code becomes the enum's UNKNOWN), shared with the log's batch decoder.
from aclog.records.build import acls_from_columns
from aclog.records.id_bytes import ID_BYTES, split_ids
from aclog.records.types import AccessControlEntryRecord

if (
    TYPE_CHECKING
):  # the columns' readers load them; the schema, the name and the writer need neither
    import pyarrow as pa

CHUNK_ACLS = 4096
"""ACLs per column chunk: big enough that a chunk's fixed costs vanish, small enough that the
writer holds little (a chunk is about 200 KB)."""
FULL_NAME = "aclog.snapshot.AclColumns"
_CODE_FIELDS = ("resource_type", "pattern_type", "operation", "permission_type")
_STRING_FIELDS = ("resource_name", "principal", "host")
# An unsigned 32-bit array typecode; its items are stored little-endian whatever the machine.
_U32 = next(code for code in "IL" if array(code).itemsize == 4)
_SWAP = sys.byteorder != "little"

_U32_DOC = "each ACL's index into strings, unsigned 32-bit little-endian"
_CODE_DOC = "one byte per ACL: its Kafka {} code"
ACL_COLUMNS_SCHEMA: dict[str, Any] = {
    "type": "record",
    "name": "AclColumns",
    "namespace": "aclog.snapshot",
    "doc": "Up to 4096 ACLs (AccessControlEntryRecord v0 fields) as columns, in file order.",
    "fields": [
        {"name": "count", "type": "long", "doc": "How many ACLs this chunk holds."},
        {"name": "id", "type": "bytes", "doc": "16 bytes per ACL: its UUID, big-endian."},
        {"name": "resource_type", "type": "bytes", "doc": _CODE_DOC.format("ResourceType")},
        {"name": "pattern_type", "type": "bytes", "doc": _CODE_DOC.format("PatternType")},
        {"name": "operation", "type": "bytes", "doc": _CODE_DOC.format("AclOperation")},
        {"name": "permission_type", "type": "bytes", "doc": _CODE_DOC.format("AclPermissionType")},
        {
            "name": "strings",
            "type": "bytes",
            "doc": "The chunk's distinct strings, UTF-8, each but the last followed by separator.",
        },
        {"name": "resource_name", "type": "bytes", "doc": _U32_DOC},
        {"name": "principal", "type": "bytes", "doc": _U32_DOC},
        {"name": "host", "type": "bytes", "doc": _U32_DOC},
        {"name": "string_count", "type": "long", "doc": "How many strings there are."},
        {"name": "separator", "type": "string", "doc": "One character no string holds."},
    ],
}
"""The Avro schema of one chunk (a JSON-ready dict)."""


def _u32_bytes(values: Sequence[int]) -> bytes:
    packed = array(_U32, values)
    if _SWAP:
        packed.byteswap()
    return packed.tobytes()


def encode_chunk(acls: Sequence[AccessControlEntryRecord]) -> dict[str, Any]:
    """The Avro field values of one chunk holding ``acls`` (at most :data:`CHUNK_ACLS`)."""
    table: dict[str, int] = {}
    add = table.setdefault
    fields: dict[str, Any] = {
        "count": len(acls),
        "id": b"".join(acl.id.bytes for acl in acls),
    }
    for name in _CODE_FIELDS:
        fields[name] = bytes(map(attrgetter(name), acls))
    for name in _STRING_FIELDS:
        # setdefault's default is evaluated first: a new string gets the next index.
        fields[name] = _u32_bytes([add(s, len(table)) for s in map(attrgetter(name), acls)])
    separator = _separator(table)
    fields["strings"] = separator.join(table).encode("utf-8")
    fields["string_count"] = len(table)
    fields["separator"] = separator
    return fields


def _separator(strings: Iterable[str]) -> str:
    """NUL, or the first character that none of ``strings`` holds: splitting on it (one C
    call) is several times faster than slicing by stored lengths."""
    text = "".join(strings)
    for code in range(0x110000):
        if not 0xD800 <= code <= 0xDFFF and chr(code) not in text:
            return chr(code)
    raise ValueError("the strings of one chunk hold every character; no separator is left")


def _strings(fields: dict[str, Any]) -> list[str]:
    expected: int = fields["string_count"]
    separator: str = fields["separator"]
    if len(separator) != 1:
        raise ValueError(f"the chunk's separator is {separator!r}, not one character")
    strings = fields["strings"].decode("utf-8").split(separator) if expected else []
    if len(strings) != expected:
        raise ValueError(f"the chunk holds {len(strings)} strings, its header says {expected}")
    return strings


def _id_bytes(data: bytes, count: int) -> list[bytes]:
    if len(data) != ID_BYTES * count:
        raise ValueError(f"column id holds {len(data)} bytes, not 16 per ACL ({count})")
    return split_ids(data)


@dataclass(frozen=True, slots=True)
class ChunkArrays:
    """One chunk's columns, checked to fit together, as numpy arrays: the ids as 16 bytes each
    back to back (``ids``), each code field's ``uint8`` codes, the ``string_count`` strings
    (``text``, joined by ``separator``; split into ``strings`` unless asked not to), and each
    string field's ``uint32`` indexes into them (every index below ``string_count``), by
    field name."""

    count: int
    ids: bytes
    codes: dict[str, Any]
    strings: list[str]
    indexes: dict[str, Any]
    text: bytes
    separator: str
    string_count: int


def chunk_arrays(fields: dict[str, Any], *, split: bool = True) -> ChunkArrays:
    """The columns of one chunk's field values; ``ValueError`` for columns that do not fit
    together (a length, a count, an index past the strings). ``split=False`` leaves the
    strings joined (``strings`` empty) for a reader that splits many chunks' at once
    (:func:`chunk_strings`), which then checks them. Cost: a few C-level calls per column,
    none per ACL."""
    import numpy as np  # noqa: PLC0415  # (see the imports)

    count: int = fields["count"]
    expected: int = fields["string_count"]
    strings = _strings(fields) if split else []
    ids: bytes = fields["id"]
    # The id column's length checks the count before anything is allocated for it.
    if len(ids) != ID_BYTES * count:
        raise ValueError(f"column id holds {len(ids)} bytes, not 16 per ACL ({count})")
    codes: dict[str, Any] = {}
    for name in _CODE_FIELDS:
        column: bytes = fields[name]
        if len(column) != count:
            raise ValueError(f"column {name} holds {len(column)} codes for {count} ACLs")
        codes[name] = np.frombuffer(column, dtype=np.uint8)
    indexes: dict[str, Any] = {}
    for name in _STRING_FIELDS:
        data: bytes = fields[name]
        if len(data) != 4 * count:
            raise ValueError(f"column {name} holds {len(data)} bytes, not 4 per value ({count})")
        values = np.frombuffer(data, dtype="<u4")
        if count and int(values.max()) >= expected:
            raise ValueError(f"column {name} indexes past the chunk's {expected} strings")
        indexes[name] = values
    separator: str = fields["separator"]
    return ChunkArrays(count, ids, codes, strings, indexes, fields["strings"], separator, expected)


def chunk_strings(chunks: Sequence[ChunkArrays]) -> pa.Array:
    """The strings of every chunk of ``chunks``, in order, as one Arrow string array, split
    in C (no Python string per item); ``ValueError`` as :func:`chunk_arrays` gives for a
    chunk whose strings do not match its header."""
    import numpy as np  # noqa: PLC0415  # (see the imports)
    import pyarrow as pa  # noqa: PLC0415
    import pyarrow.compute as pc  # noqa: PLC0415

    from aclog.records.vector import numpy_numbers  # noqa: PLC0415  (numpy, as above)

    for chunk in chunks:  # every chunk's, as splitting each alone checks it
        if len(chunk.separator) != 1:
            raise ValueError(f"the chunk's separator is {chunk.separator!r}, not one character")
    filled = [c for c in chunks if c.string_count]  # no strings: its text is not read
    if not filled:
        return pa.array([], pa.string())
    try:
        texts = _binary([c.text for c in filled]).cast(pa.string())
    except pa.ArrowInvalid as err:
        raise ValueError(f"a chunk's strings are not UTF-8: {err}") from None
    separators = {c.separator for c in filled}
    if len(separators) == 1:
        lists = pc.split_pattern(texts, separators.pop())
    else:
        lists = pa.concat_arrays(
            [pc.split_pattern(texts.slice(i, 1), c.separator) for i, c in enumerate(filled)]
        )
    found = numpy_numbers(pc.list_value_length(lists))
    expected = np.array([c.string_count for c in filled])
    if (found != expected).any():
        at = int(np.flatnonzero(found != expected)[0])
        raise ValueError(f"the chunk holds {found[at]} strings, its header says {expected[at]}")
    return lists.flatten()


def _binary(texts: list[bytes]) -> pa.Array:
    """``texts`` as an Arrow binary array, from its buffers: not ``pa.array``, whose first
    call imports pandas (a third of a second of every snapshot load, as
    :func:`aclog.records.vector.arrow_numbers` says)."""
    import numpy as np  # noqa: PLC0415  # (see the imports)
    import pyarrow as pa  # noqa: PLC0415

    offsets = np.zeros(len(texts) + 1, dtype=np.int64)
    np.cumsum([len(text) for text in texts], out=offsets[1:])
    if offsets[-1] >= 1 << 31:  # past 32-bit offsets: Arrow's own conversion chunks or refuses
        return pa.array(texts, pa.binary())
    buffers = [None, pa.py_buffer(offsets.astype(np.int32)), pa.py_buffer(b"".join(texts))]
    return pa.Array.from_buffers(pa.binary(), len(texts), buffers)


def decode_chunk(fields: dict[str, Any]) -> list[AccessControlEntryRecord]:
    """The ACL records of one chunk's field values, equal to what their per-record encoding
    decodes to (unknown codes become the enums' ``UNKNOWN``). ``ValueError`` for columns that
    do not fit together."""
    from aclog.records.column_records import code_members  # noqa: PLC0415  # numpy

    chunk = chunk_arrays(fields)
    ids = _id_bytes(chunk.ids, chunk.count)
    codes = {name: code_members(values, name) for name, values in chunk.codes.items()}
    strings = chunk.strings.__getitem__
    names, principals, hosts = (
        list(map(strings, chunk.indexes[name].tolist())) for name in _STRING_FIELDS
    )
    records = acls_from_columns(
        ids,
        codes["resource_type"],
        names,
        codes["pattern_type"],
        principals,
        hosts,
        codes["operation"],
        codes["permission_type"],
        converted=True,
    )
    return cast(list[AccessControlEntryRecord], records)
