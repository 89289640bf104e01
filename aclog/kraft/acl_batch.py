"""Decodes a KRaft data batch of ACL records (grants and removals) straight from its bytes, with
numpy passes over the whole batch: the fast path of :func:`aclog.kraft.batch.decode_batch` for
the batches a snapshot, and a log of ACL changes, are made of.

A ``.checkpoint`` restates every ACL as its own record in batches of thousands, so reading one
costs two walks per record in Python where aclog's own snapshot (ACLs stored as columns) costs
none: cutting the values out of the records (:func:`aclog.log.batch.record_values`), then
taking each value apart (:mod:`aclog.kraft.columns`). Here both are numpy passes over the batch:

- The records: the offset of record ``i + 1`` follows from the length varint of record ``i``,
  a chain that numpy follows by pointer doubling over the places a record can start (where
  attributes and timestamp delta, two zero bytes, follow a length): about log2(records)
  passes. Every record is then checked to be exactly what Kafka's raft layer writes (a
  minimal length, attributes 0, timestamp delta 0, offset delta ``i``, a null key, the value,
  no headers, the length covering exactly that), so the values are the ones
  :func:`~aclog.log.batch.record_values` cuts.
- The values: AccessControlEntryRecord and RemoveAccessControlEntryRecord version 0 with
  one-byte frame fields and compact lengths, no tagged fields, ending where the value ends (the
  form :mod:`aclog.kraft.columns` reads), each kind decoded in one go and put back in offset
  order. The codes go through object arrays of enum members; each string field is gathered
  into one buffer, NUL between the strings, decoded as UTF-8 once and split: one C call per
  field for the whole batch.

Anything else (other record types, a null or longer string, a tagged field, text that is not
UTF-8 or holds a NUL, a damaged record, a batch of fewer than :data:`MIN_RECORDS` or more than
2**20 records) gives ``None``, and the caller takes the general path, which decodes the batch
or raises the codec's error naming the record's own offset; so results and errors are those of
:mod:`aclog.kraft.codec`.

Thread-safe (tables are never mutated). Cost: a few dozen numpy passes per batch and one
builder pass per field (:func:`aclog.records.build.acls_from_columns`); no Python bytecode per
record.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from aclog.kraft.columns import Decoded
from aclog.kraft.schemas import ACCESS_CONTROL_ENTRY, REMOVE_ACCESS_CONTROL_ENTRY
from aclog.log.batch import HEADER_SIZE
from aclog.records import AclOperation, AclPermissionType, PatternType, Record, ResourceType
from aclog.records.build import acls_from_columns, consume, remove_acls_from_ids
from aclog.records.id_bytes import split_ids

MIN_RECORDS = 512
"""Smaller batches take the general path: the numpy passes cost a fixed 0.1-0.3 ms a batch,
more than the general path spends on a few hundred records (a log's batches are mostly small:
one per request; a snapshot's hold thousands)."""
MAX_RECORDS = 1 << 20
"""Larger batches (offset deltas of four varint bytes) take the general path."""
_ACL_FRAMES = (bytes((1, ACCESS_CONTROL_ENTRY, 0)), bytes((1, REMOVE_ACCESS_CONTROL_ENTRY, 0)))
_FIRST_FRAME = slice(HEADER_SIZE + 5, HEADER_SIZE + 11)
"""Where the first value's frame starts (after a length of 1-2 bytes, attributes, timestamp
and offset deltas, a null key, a value length of 1-2 bytes), and two bytes more."""
_ID = np.arange(16)
_SEPARATOR = 0  # NUL: between the gathered strings; a string holding one takes the general path
_FAILED = (IndexError, UnicodeDecodeError)


def _codes(convert: Any) -> Any:
    """A byte -> ``convert`` of it read as Kafka's signed ``int8``, as an object array."""
    table = np.empty(256, dtype=object)
    table[:] = [convert(b - 256 if b >= 0x80 else b) for b in range(256)]
    return table


_RESOURCE = _codes(ResourceType.from_code)
_PATTERN = _codes(PatternType.from_code)
_OPERATION = _codes(AclOperation.from_code)
_PERMISSION = _codes(AclPermissionType.from_code)
_CODE_TABLES = (_RESOURCE, _PATTERN, _OPERATION, _PERMISSION)
# A byte -> the code of the member its record holds (``UNKNOWN``, 0, for a code without one).
_BYTE_CODES = tuple(np.array([int(m) for m in t], dtype=np.uint8) for t in _CODE_TABLES)


@dataclass(frozen=True, slots=True)
class AclColumns:
    """Represents the ACL grants of a batch, in offset order, as columns: ``ids`` (16 bytes
    each, back to back), ``codes`` (one ``uint8`` array each for resource type, pattern type,
    operation and permission: the code of the member a record would hold) and ``strings``
    (resource name, principal, host: one ``str`` per grant each).

    Immutable by convention (nobody changes the arrays); thread-safe. Cost: none (a holder).
    """

    ids: bytes
    codes: tuple[Any, Any, Any, Any]
    strings: tuple[list[str], list[str], list[str]]

    def __len__(self) -> int:
        return len(self.ids) // 16

    def records(self) -> list[Record]:
        """The grants as records, as :func:`decode_acl_batch` builds them."""
        resource, pattern, operation, permission = (
            table[codes].tolist() for table, codes in zip(_CODE_TABLES, self.codes, strict=True)
        )
        name, principal, host = self.strings
        columns = (resource, name, pattern, principal, host, operation, permission)
        return acls_from_columns(split_ids(self.ids), *columns, converted=True)


def decode_acl_columns(
    data: bytes, count: int, *, min_records: int = MIN_RECORDS
) -> AclColumns | None:
    """The grants of the data batch ``data`` as columns when :func:`decode_acl_batch` would
    decode it and every record is an AccessControlEntryRecord; else ``None``."""
    if not max(min_records, 1) <= count <= MAX_RECORDS or _ACL_FRAMES[0] not in data[_FIRST_FRAME]:
        return None
    buffer = np.frombuffer(data + bytes((_SEPARATOR,)), dtype=np.uint8)
    try:
        values = _value_positions(buffer, len(data), count)
        if values is None:
            return None
        start, value_end = values
        grants = (buffer[start] == 1) & (buffer[start + 2] == 0)
        if not bool((grants & (buffer[start + 1] == ACCESS_CONTROL_ENTRY)).all()):
            return None
        return _acl_columns(buffer, len(data), start, value_end)
    except _FAILED:  # a read past the buffer (damage), or text that is not UTF-8
        return None


def decode_acl_batch(data: bytes, count: int, *, min_records: int = MIN_RECORDS) -> Decoded | None:
    """The api key and record of each value of the uncompressed data batch ``data`` (header
    included, CRC checked) whose header says ``count`` records, when every record is an
    AccessControlEntryRecord or RemoveAccessControlEntryRecord v0 in the form described above
    and there are at least ``min_records``; else ``None`` (nothing to report: the general path
    decides)."""
    if not max(min_records, 1) <= count <= MAX_RECORDS or not _starts_with_an_acl(data):
        return None
    buffer = np.frombuffer(data + bytes((_SEPARATOR,)), dtype=np.uint8)
    try:
        values = _value_positions(buffer, len(data), count)
        return None if values is None else _records(buffer, len(data), *values)
    except _FAILED:  # a read past the buffer (damage), or text that is not UTF-8
        return None


def _starts_with_an_acl(data: bytes) -> bool:
    """Whether the first value may be an ACL grant or removal: a check of a few bytes that
    keeps batches of other records away from the numpy passes (they would decline them)."""
    head = data[_FIRST_FRAME]
    return _ACL_FRAMES[0] in head or _ACL_FRAMES[1] in head


def _records(buffer: Any, end: int, start: Any, value_end: Any) -> Decoded | None:
    """The records of the values at ``start``..``value_end``: grants and removals, each kind
    decoded in one go, then put back in offset order."""
    framed = (buffer[start] == 1) & (buffer[start + 2] == 0)  # frame version 1, version 0
    adding = framed & (buffer[start + 1] == ACCESS_CONTROL_ENTRY)
    if bool(adding.all()):
        acls = _acls(buffer, end, start, value_end)
        if acls is None:
            return None
        return [ACCESS_CONTROL_ENTRY] * len(acls), cast(list[Record | None], acls)
    removing = framed & (buffer[start + 1] == REMOVE_ACCESS_CONTROL_ENTRY)
    if not bool((adding | removing).all()):
        return None
    adds, removes = np.flatnonzero(adding), np.flatnonzero(removing)
    added = _acls(buffer, end, start[adds], value_end[adds]) if len(adds) else []
    removed = _removals(buffer, start[removes], value_end[removes])
    if added is None or removed is None:
        return None
    records: list[Record | None] = [None] * len(start)
    consume(map(records.__setitem__, adds.tolist(), added))
    consume(map(records.__setitem__, removes.tolist(), removed))
    api_keys = np.where(adding, ACCESS_CONTROL_ENTRY, REMOVE_ACCESS_CONTROL_ENTRY).tolist()
    return api_keys, records


def _removals(buffer: Any, start: Any, value_end: Any) -> list[Record] | None:
    """RemoveAccessControlEntryRecord v0: the frame, the 16-byte id, an empty tag section."""
    if not bool(((value_end - start == 20) & (buffer[start + 19] == 0)).all()):
        return None
    return remove_acls_from_ids(_ids(buffer, start))


def _ids(buffer: Any, start: Any) -> list[bytes]:
    """The 16 bytes after the frame of each value, cut by one regex call."""
    return split_ids(buffer[(start + 3)[:, None] + _ID].tobytes())


def _varint(buffer: Any, at: Any, max_bytes: int) -> tuple[Any, Any]:
    """The unsigned varints at ``at`` (``int64``) and their sizes in bytes; the size is
    negative for one that is longer than ``max_bytes`` or not minimal (a last byte of 0 after
    the first), which Kafka never writes."""
    value = np.zeros(len(at), dtype=np.int64)
    size = np.zeros(len(at), dtype=np.int64)
    more = np.ones(len(at), dtype=bool)
    for i in range(max_bytes):
        byte = buffer[at + i].astype(np.int64)
        value |= np.where(more, (byte & 0x7F) << (7 * i), 0)
        size += more
        minimal = (byte != 0) | (i == 0)
        size[more & ~minimal] = -MAX_RECORDS  # a non-minimal varint never checks out
        more &= (byte & 0x80) != 0
    size[more] = -MAX_RECORDS  # longer than allowed
    return value, size


def _zigzag(value: Any) -> Any:
    return (value >> 1) ^ -(value & 1)


def _value_positions(buffer: Any, end: int, count: int) -> tuple[Any, Any] | None:
    """Where each record's value starts and ends, when the records are exactly Kafka's."""
    starts = _record_starts(buffer, end, count)
    if starts is None:
        return None
    raw_length, length_size = _varint(buffer, starts, 2)
    record_end = starts + length_size + _zigzag(raw_length)
    delta_at = starts + length_size + 2  # after attributes and timestamp delta (checked 0, 0)
    delta, delta_size = _varint(buffer, delta_at, 3)
    key_at = delta_at + delta_size
    value_length, value_length_size = _varint(buffer, key_at + 1, 2)
    value_start = key_at + 1 + value_length_size
    value_end = value_start + _zigzag(value_length)
    exact = (
        (length_size > 0)
        & (delta_size > 0)
        & (value_length_size > 0)
        & (delta == 2 * np.arange(count, dtype=np.int64))  # zigzag of offset delta i
        & (buffer[key_at] == 1)  # a null key: zigzag -1
        & (value_end >= value_start)
        & (value_end + 1 == record_end)
        & (buffer[np.minimum(value_end, end)] == 0)  # no headers
    )
    return (value_start, value_end) if bool(exact.all()) else None


def _record_starts(buffer: Any, end: int, count: int) -> Any | None:
    """Where each of the ``count`` records starts, following the length varints from the
    first record to the batch's end; ``None`` unless the chain ends exactly there."""
    zeros = buffer[HEADER_SIZE : end + 1] == 0
    pair = np.zeros(len(zeros) + 2, dtype=bool)
    pair[: len(zeros) - 1] = zeros[:-1] & zeros[1:]  # pair[p]: bytes p and p + 1 are 0
    high = buffer[HEADER_SIZE : end + 1] >= 0x80
    one = ~high & pair[1 : len(zeros) + 1]
    two = high & ~np.append(high[1:], False) & pair[2 : len(zeros) + 2]
    candidates = np.flatnonzero(one | two) + HEADER_SIZE
    if not len(candidates) or candidates[0] != HEADER_SIZE:
        return None
    raw, size = _varint(buffer, candidates, 2)
    after = candidates + np.maximum(size, 0) + _zigzag(raw)
    # Each candidate's successor by index: the end of the batch, or nowhere (a broken chain).
    done, broken = len(candidates), len(candidates) + 1
    found = np.minimum(np.searchsorted(candidates, after), done - 1)
    jump = np.where(candidates[found] == after, found, broken)
    jump = np.append(np.where(after == end, done, jump), [broken, broken])
    jump[(size <= 0).nonzero()[0]] = broken
    # Record m is jump applied m times to record 0: by the bits of m, doubling the jump.
    steps = np.arange(count + 1)
    at = np.zeros(count + 1, dtype=np.int64)
    bit = 0
    while (1 << bit) <= count:
        taken = ((steps >> bit) & 1).astype(bool)
        at[taken] = jump[at[taken]]
        jump = jump[jump]
        bit += 1
    if at[count] != done or bool((at[:count] >= done).any()):
        return None
    return candidates[at[:count]]


def _acls(buffer: Any, end: int, start: Any, value_end: Any) -> list[Record] | None:
    """AccessControlEntryRecord v0 values (frames checked by the caller)."""
    columns = _acl_columns(buffer, end, start, value_end)
    return None if columns is None else columns.records()


def _acl_columns(buffer: Any, end: int, start: Any, value_end: Any) -> AclColumns | None:
    """The columns of AccessControlEntryRecord v0 values (frames checked by the caller)."""
    name_at = start + 20
    name_ends, names = _strings(buffer, end, name_at)
    principal_at = name_ends + 1
    principal_ends, principals = _strings(buffer, end, principal_at)
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


def _strings(buffer: Any, end: int, at: Any) -> tuple[Any, list[str] | None]:
    """Where the compact strings whose one-byte length sits at ``at`` end, and the strings
    (``None`` when a length is null or longer than a byte, or a string holds a NUL)."""
    compact = buffer[at].astype(np.int64)
    if not bool(((compact >= 1) & (compact < 0x80)).all()):
        return at, None
    lengths = compact - 1
    starts = at + 1
    # One gather: each string's bytes, then the separator (the byte after the batch).
    spans = lengths + 1
    placed = np.cumsum(spans) - spans
    total = int(spans.sum())
    index = np.repeat(starts - placed, spans) + np.arange(total, dtype=np.int64)
    index[placed + lengths] = end
    if bool((index > end).any()):
        raise IndexError("a string runs past the batch")
    texts = buffer[index].tobytes().decode("utf-8").split("\x00")
    if len(texts) != len(at) + 1:
        return at, None
    texts.pop()
    return starts + lengths, texts
