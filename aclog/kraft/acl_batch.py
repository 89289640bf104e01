"""Decodes a KRaft data batch of ACL records (grants and removals) straight from its bytes, with
numpy passes over the whole batch: the fast path of :func:`aclog.kraft.batch.decode_batch` for
the batches a snapshot, and a log of ACL changes, are made of.

A ``.checkpoint`` restates every ACL as its own record in batches of thousands, so reading one
costs two walks per record in Python where aclog's own snapshot (ACLs stored as columns) costs
none: cutting the values out of the records, then taking each value apart
(:mod:`aclog.kraft.columns`). Here both are numpy passes over the batch: the values are found
by :func:`~aclog.kraft.record_positions.value_positions` (records exactly as Kafka's raft layer
writes them), then taken apart here, a field at a time for the whole batch
(:class:`AclValues`): AccessControlEntryRecord and RemoveAccessControlEntryRecord version 0
with one-byte frame fields and compact lengths, no tagged fields, ending where the value ends
(the form :mod:`aclog.kraft.columns` reads). Each string field is gathered into one buffer and
becomes an Arrow string column (offsets + data, UTF-8 checked by Arrow in C): no Python string
per value until records are asked for.

Anything else (other record types, a null or longer string, a tagged field, text that is not
UTF-8, a damaged record, a batch of fewer than :data:`MIN_RECORDS` or more than 2**20 records)
gives ``None``, and the caller takes the general path, which decodes the batch or raises the
codec's error naming the record's own offset; so results and errors are those of
:mod:`aclog.kraft.codec`.

Thread-safe (nothing is mutated). Cost: a few dozen numpy passes per batch; records, when
asked for, one builder pass per field (:func:`aclog.records.build.acls_from_columns`); no
Python bytecode per record.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import pyarrow as pa

from aclog.kraft.columns import Decoded
from aclog.kraft.record_positions import MAX_RECORDS, value_positions
from aclog.kraft.schemas import ACCESS_CONTROL_ENTRY, REMOVE_ACCESS_CONTROL_ENTRY
from aclog.log.batch import HEADER_SIZE
from aclog.records import AclOperation, AclPermissionType, PatternType, Record, ResourceType
from aclog.records.build import acls_from_columns, consume, remove_acls_from_ids
from aclog.records.id_bytes import split_ids

MIN_RECORDS = 512
"""Smaller batches take the general path: the numpy passes cost a fixed amount a batch,
more than the general path spends on a few hundred records (a log's batches are mostly small:
one per request; a snapshot's hold thousands; the ``kraft`` suite of ``make bench`` times both)."""
_ACL_FRAMES = (bytes((1, ACCESS_CONTROL_ENTRY, 0)), bytes((1, REMOVE_ACCESS_CONTROL_ENTRY, 0)))
_FIRST_FRAME = slice(HEADER_SIZE + 5, HEADER_SIZE + 11)
"""Where the first value's frame starts (after a length of 1-2 bytes, attributes, timestamp
and offset deltas, a null key, a value length of 1-2 bytes), and two bytes more."""
_ID = np.arange(16)
_FAILED = (IndexError, pa.ArrowInvalid)  # a read past the batch (damage), or text not UTF-8


def _codes(convert: Any) -> Any:
    """A byte -> ``convert`` of it read as Kafka's signed ``int8``, as an object array."""
    table = np.empty(256, dtype=object)
    table[:] = [convert(b - 256 if b >= 0x80 else b) for b in range(256)]
    return table


_CODE_TABLES = tuple(
    _codes(kind.from_code) for kind in (ResourceType, PatternType, AclOperation, AclPermissionType)
)
# A byte -> the code of the member its record holds (``UNKNOWN``, 0, for a code without one).
_BYTE_CODES = tuple(np.array([int(m) for m in t], dtype=np.uint8) for t in _CODE_TABLES)
_NO_CODES = (np.empty(0, np.uint8),) * 4
# Not pa.array: its first call imports pandas, which every command would then pay for at its
# start (tests/tools/test_startup_imports.py guards it).
_NO_STRINGS = (pa.nulls(0, pa.string()),) * 3


@dataclass(frozen=True, slots=True)
class AclColumns:
    """Represents the ACL grants of a batch, in offset order, as columns: ``ids`` (16 bytes
    each, back to back), ``codes`` (one ``uint8`` array each for resource type, pattern type,
    operation and permission: the code of the member a record would hold) and ``strings``
    (resource name, principal, host: one Arrow string array each, a value per grant).

    Immutable by convention (nobody changes the arrays); thread-safe. Cost: none (a holder).
    """

    ids: bytes
    codes: tuple[Any, Any, Any, Any]
    strings: tuple[pa.StringArray, pa.StringArray, pa.StringArray]

    def __len__(self) -> int:
        return len(self.ids) // 16

    def records(self) -> list[Record]:
        """The grants as records, as :func:`decode_acl_batch` builds them."""
        resource, pattern, operation, permission = (
            table[codes].tolist() for table, codes in zip(_CODE_TABLES, self.codes, strict=True)
        )
        name, principal, host = (field.to_pylist() for field in self.strings)
        columns = (resource, name, pattern, principal, host, operation, permission)
        return acls_from_columns(split_ids(self.ids), *columns, converted=True)


@dataclass(frozen=True, slots=True)
class AclValues:
    """Represents the values of a data batch that are all ACL grants and removals v0, found in
    its bytes (``buffer``, one byte past the batch's ``end`` more): where each starts and ends,
    and which are grants (``adds``) and removals (``removes``), as indices in offset order.

    Immutable; thread-safe. Cost: see the methods (numpy passes over the values of a kind)."""

    buffer: Any
    end: int
    start: Any
    value_end: Any
    adds: Any
    removes: Any

    def grants(self) -> AclColumns | None:
        """The columns of the grants; ``None`` when one is not in the form described above."""
        adds = self.adds
        try:
            return _acl_columns(self.buffer, self.end, self.start[adds], self.value_end[adds])
        except _FAILED:
            return None

    def removal_ids(self) -> bytes | None:
        """The ids of the removals (16 bytes each, back to back); ``None`` when one is not a
        frame, the 16-byte id and an empty tag section."""
        buffer, start = self.buffer, self.start[self.removes]
        if not bool(
            ((self.value_end[self.removes] - start == 20) & (buffer[start + 19] == 0)).all()
        ):
            return None
        return bytes(buffer[(start + 3)[:, None] + _ID].tobytes())


def acl_values(data: bytes, count: int, *, min_records: int = MIN_RECORDS) -> AclValues | None:
    """The values of the uncompressed data batch ``data`` (header included, CRC checked) whose
    header says ``count`` records, when they are Kafka's records of ACL grants and removals v0
    (frames checked; fields not yet) and there are at least ``min_records``; else ``None``."""
    if not max(min_records, 1) <= count <= MAX_RECORDS or not _starts_with_an_acl(data):
        return None
    buffer = np.frombuffer(data + b"\x00", dtype=np.uint8)
    try:
        values = value_positions(buffer, len(data), count)
    except IndexError:  # a read past the buffer: damage
        return None
    if values is None:
        return None
    start, value_end = values
    framed = (buffer[start] == 1) & (buffer[start + 2] == 0)  # frame version 1, version 0
    adding = framed & (buffer[start + 1] == ACCESS_CONTROL_ENTRY)
    removing = framed & (buffer[start + 1] == REMOVE_ACCESS_CONTROL_ENTRY)
    if not bool((adding | removing).all()):
        return None
    adds, removes = np.flatnonzero(adding), np.flatnonzero(removing)
    return AclValues(buffer, len(data), start, value_end, adds, removes)


def decode_acl_columns(
    data: bytes, count: int, *, min_records: int = MIN_RECORDS
) -> AclColumns | None:
    """The grants of the data batch ``data`` as columns when :func:`decode_acl_batch` would
    decode it and every record is an AccessControlEntryRecord; else ``None``."""
    if _ACL_FRAMES[0] not in data[_FIRST_FRAME]:
        return None
    values = acl_values(data, count, min_records=min_records)
    return None if values is None or len(values.removes) else values.grants()


def decode_acl_batch(data: bytes, count: int, *, min_records: int = MIN_RECORDS) -> Decoded | None:
    """The api key and record of each value of the uncompressed data batch ``data`` (header
    included, CRC checked) whose header says ``count`` records, when every record is an
    AccessControlEntryRecord or RemoveAccessControlEntryRecord v0 in the form described above
    and there are at least ``min_records``; else ``None`` (nothing to report: the general path
    decides)."""
    values = acl_values(data, count, min_records=min_records)
    if values is None:
        return None
    adds, removes = values.adds, values.removes
    grants = values.grants() if len(adds) else AclColumns(b"", _NO_CODES, _NO_STRINGS)
    ids = values.removal_ids() if len(removes) else b""
    if grants is None or ids is None:
        return None
    if not len(removes):
        return [ACCESS_CONTROL_ENTRY] * count, cast(list[Record | None], grants.records())
    records: list[Record | None] = [None] * count
    consume(map(records.__setitem__, adds.tolist(), grants.records()))
    consume(map(records.__setitem__, removes.tolist(), remove_acls_from_ids(split_ids(ids))))
    api_keys = np.full(count, ACCESS_CONTROL_ENTRY)
    api_keys[removes] = REMOVE_ACCESS_CONTROL_ENTRY
    return api_keys.tolist(), records


def _starts_with_an_acl(data: bytes) -> bool:
    """Whether the first value may be an ACL grant or removal: a check of a few bytes that
    keeps batches of other records away from the numpy passes (they would decline them)."""
    head = data[_FIRST_FRAME]
    return _ACL_FRAMES[0] in head or _ACL_FRAMES[1] in head


def _acl_columns(buffer: Any, end: int, start: Any, value_end: Any) -> AclColumns | None:
    """The columns of AccessControlEntryRecord v0 values (frames checked by the caller)."""
    name_ends, names = _strings(buffer, end, start + 20)
    principal_ends, principals = _strings(buffer, end, name_ends + 1)
    host_ends, hosts = _strings(buffer, end, principal_ends)
    if names is None or principals is None or hosts is None:
        return None
    tags_at = host_ends + 2
    if not bool(((tags_at + 1 == value_end) & (buffer[tags_at] == 0)).all()):
        return None
    ids = buffer[(start + 3)[:, None] + _ID].tobytes()
    bytes_at = (start + 19, name_ends, host_ends, host_ends + 1)
    codes = tuple(table[buffer[at]] for table, at in zip(_BYTE_CODES, bytes_at, strict=True))
    return AclColumns(ids, codes, (names, principals, hosts))


def _strings(buffer: Any, end: int, at: Any) -> tuple[Any, pa.StringArray | None]:
    """Where the compact strings whose one-byte length sits at ``at`` end, and the strings as
    one Arrow array (``None`` when a length is null or longer than a byte). Raises
    ``IndexError`` for a string past the batch, ``pa.ArrowInvalid`` for text not UTF-8."""
    compact = buffer[at].astype(np.int64)
    if not bool(((compact >= 1) & (compact < 0x80)).all()):
        return at, None
    lengths = compact - 1
    starts = at + 1
    ends = starts + lengths
    if bool((ends > end).any()):
        raise IndexError("a string runs past the batch")
    offsets = np.zeros(len(at) + 1, dtype=np.int32)
    np.cumsum(lengths, out=offsets[1:])
    # One gather: each string's bytes, back to back (Arrow's data buffer).
    index = np.repeat(starts - offsets[:-1], lengths) + np.arange(int(offsets[-1]), dtype=np.int64)
    data = buffer[index]
    texts = pa.StringArray.from_buffers(len(at), pa.py_buffer(offsets), pa.py_buffer(data))
    texts.validate(full=True)  # UTF-8, as the codec's decode checks it
    return ends, texts
