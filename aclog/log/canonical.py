"""The records of a batch laid out as this log writes them, taken apart with C-level passes.

:func:`~aclog.log.batch.build_batch` writes every record of a batch the same way: attributes 0,
timestamp delta 0, offset delta ``i``, a null key, the value, no headers, each varint in its
shortest form. Such a records section is a pure function of its values, so a guess at the
values can be checked exactly by writing them again: :func:`canonical_values` follows the
record lengths (the only step that must go record by record: a short loop step), cuts the
values out where this layout puts them, and returns them only when the records they make are
byte for byte the batch's records. Anything else (another writer's records, a damaged or
non-minimal varint, a batch of more than 65,536 records) gives ``None``, and the general
parser in :mod:`aclog.log.batch` decides, with its exact errors. A batch that passes gives
the values the general parser gives, since both read the same bytes under the same layout.

:mod:`aclog.log.canonical_vector` finds the same values with numpy passes and no step per
record, and is tried first for a batch of :data:`VECTOR_MIN` records or more; when it cannot
tell (a value holds bytes that look like a record's prefix) the loop below decides.

Thread-safe (the tables are replaced whole, never changed in place). Cost: one short Python
loop step per record and about ten C-level passes, plus one join and compare of the records'
bytes: O(records + bytes), a constant below the general parser's (the ``log`` suite's
``read (CRC + batch parse)`` row).
"""

from __future__ import annotations

from itertools import chain, repeat
from operator import add, sub

from aclog.varint import zigzag

MAX_RECORDS = 1 << 16
"""Larger batches take the general parser (the tables below would grow past a few MB)."""

VECTOR_MIN = 128
"""Smaller batches skip :mod:`~aclog.log.canonical_vector`: its numpy passes cost about
a fixed cost per batch whatever its size, the loop O(1) per record, so in a log written a
request at a time (a few records a batch) the vector path was most of the cost of reading it.
Measured in turn (run ``by-suite/smallreplay`` in ``benchmarks/results/history/``): the two
cross near 256."""

SMALL_VARINTS = [zigzag(n) for n in range(8192)]
"""The zigzag varints of 0..8191 (one or two bytes each), ready-made."""

# Bytes after the fixed prefix: value length varint + value + the header count (1 + n + 1
# up to n = 63, then 2 + n + 1): the varint's size, by that count. Others are missing.
_VALUE_LENGTH_SIZE = {rest: 1 if rest <= 65 else 2 for rest in range(2, 8192 + 3)}
_NO_HEADERS = b"\x00"
_FAILED = (IndexError, KeyError)


def _record_prefixes(count: int) -> tuple[list[bytes], list[int]]:
    """The bytes of records 0..count-1 between the length and the value length (attributes,
    timestamp delta, offset delta, null key), and their sizes."""
    tables = _PREFIXES[0]
    if len(tables[0]) < count:
        size = min(max(count, 2 * len(tables[0])), MAX_RECORDS)
        prefixes = [b"\x00\x00" + zigzag(i) + b"\x01" for i in range(size)]
        tables = (prefixes, list(map(len, prefixes)))
        _PREFIXES[0] = tables  # one store: a reader sees the old tables or the new ones
    return tables


_PREFIXES: list[tuple[list[bytes], list[int]]] = [([], [])]


def canonical_values(batch: bytes, start: int, count: int) -> list[bytes] | None:
    """The ``count`` record values of ``batch``, whose records begin at ``start`` (after the
    batch header) and run to its end, when they are exactly the records
    :func:`~aclog.log.batch.build_batch` writes for those values; else ``None``."""
    if not 0 < count <= MAX_RECORDS:
        return None
    if count >= VECTOR_MIN:
        # imported here: a log of small batches (a command's) never loads numpy for it
        from aclog.log.canonical_vector import vector_values  # noqa: PLC0415

        found = vector_values(batch, start, count)  # no loop step per record, when it can tell
        if found is not None:
            return found
    try:
        prefixes, prefix_sizes = _record_prefixes(count)
        values, lengths = _cut_values(batch, start, count, prefix_sizes)
        varint = SMALL_VARINTS.__getitem__
        rebuilt = b"".join(
            chain.from_iterable(
                zip(
                    map(varint, lengths),
                    prefixes,
                    map(varint, map(len, values)),
                    values,
                    repeat(_NO_HEADERS),
                )
            )
        )
    except _FAILED:
        return None
    if start + len(rebuilt) != len(batch) or not batch.startswith(rebuilt, start):
        return None
    return values


def _cut_values(
    batch: bytes, start: int, count: int, prefix_sizes: list[int]
) -> tuple[list[bytes], list[int]]:
    """The values where this layout puts them, and the record lengths, following record lengths
    of one or two varint bytes (a longer or negative one gives records the rebuilt ones will
    not match)."""
    bodies: list[int] = []  # where each record's bytes begin, after its length
    ends: list[int] = []
    body, end = bodies.append, ends.append
    pos = start
    for _ in range(count):
        byte = batch[pos]
        if byte < 0x80:
            pos += 1
            body(pos)
            pos += byte >> 1
        else:
            body(pos + 2)
            pos += 2 + (((byte & 0x7F) | (batch[pos + 1] << 7)) >> 1)
        end(pos)
    lengths = list(map(sub, ends, bodies))
    # Within a record: the prefix, then the value length varint (its size follows from the
    # bytes left), the value, and the header count's one byte.
    value_size = map(sub, lengths, prefix_sizes)
    within = map(add, prefix_sizes, map(_VALUE_LENGTH_SIZE.__getitem__, value_size))
    value_ends = map(sub, ends, repeat(1))
    values = map(batch.__getitem__, map(slice, map(add, bodies, within), value_ends))
    return list(values), lengths
