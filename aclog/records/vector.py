"""Vectorised reads of Avro primitives at many positions of one byte buffer at once.

A :class:`Cursor` is one read position per record over a shared buffer (the record values of a
batch joined end to end), with each record's end. Every read advances all positions together
with numpy passes: a varint is read a byte column at a time (no Python loop per record), a
string is gathered with one fancy-index pass over the buffer and wrapped as an Arrow array
without copying again. A read that would pass a record's end, a varint longer than its type
allows, a value outside an ``int``, a negative length or text that is not UTF-8 raises
:class:`NotColumnar`: the caller then decodes the batch with the reference codec, which either
decodes it or raises the codec's own error naming the record's offset.

Not thread-safe (a cursor moves); the buffer is never written. Cost: a few numpy passes per
field over the records, plus one gather of the bytes of each string field.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa

PADDING = 16
"""Zero bytes after the last value, so a varint or fixed read past a record's end (a damaged
record) gathers padding instead of raising ``IndexError``; the end check then refuses it."""

_INT_MIN, _INT_MAX = -(1 << 31), (1 << 31) - 1


class NotColumnar(Exception):
    """The records are not all in a form the vectorised passes read: damaged, or unusual."""


_NUMBERS = {np.dtype(np.int32): pa.int32(), np.dtype(np.int64): pa.int64()}


def arrow_numbers(values: Any) -> pa.Array:
    """The ``int32`` or ``int64`` numpy array ``values`` as an Arrow array, without a copy.

    Not ``pa.array``: its first call imports pandas (a third of a second), which a broker
    starting up or a CLI command has no use for."""
    values = np.ascontiguousarray(values)
    return pa.Array.from_buffers(_NUMBERS[values.dtype], len(values), [None, pa.py_buffer(values)])


def numpy_numbers(column: pa.Array) -> Any:
    """The values of an ``int32`` or ``int64`` Arrow array without nulls as a numpy array that
    shares its memory (``to_numpy`` also imports pandas on first use)."""
    if column.null_count:
        raise ValueError("numpy_numbers needs a column without nulls")
    dtype = np.int32 if column.type == pa.int32() else np.int64
    if column.type not in (pa.int32(), pa.int64()):
        raise ValueError(f"numpy_numbers needs int32 or int64, not {column.type}")
    return np.frombuffer(
        column.buffers()[1],
        dtype=dtype,
        count=len(column),
        offset=column.offset * np.dtype(dtype).itemsize,
    )


def join_values(values: list[bytes]) -> tuple[Any, Any, Any]:
    """The values joined (plus :data:`PADDING`) as a ``uint8`` array, and each value's start
    and end in it (``int64``)."""
    lengths = np.fromiter(map(len, values), dtype=np.int64, count=len(values))
    ends = np.cumsum(lengths)
    buffer = np.frombuffer(b"".join(values) + bytes(PADDING), dtype=np.uint8)
    if len(buffer) > _INT_MAX:
        raise NotColumnar("more bytes than 32-bit positions reach")
    return buffer, ends - lengths, ends


class Cursor:
    """A read position per record over ``buffer``; ``ends`` bound each record's reads."""

    def __init__(self, buffer: Any, positions: Any, ends: Any) -> None:
        self.buffer, self.pos, self.ends = buffer, positions.copy(), ends

    def take(self, rows: Any) -> Cursor:
        """A cursor over the records ``rows`` (indices) only, at their current positions."""
        return Cursor(self.buffer, self.pos[rows], self.ends[rows])

    def _check(self) -> None:
        if len(self.pos) and bool((self.pos > self.ends).any()):
            raise NotColumnar("a read passes the end of its record")

    def uvarint(self, max_bytes: int) -> Any:
        """The unsigned varints at the positions (``uint64``), of at most ``max_bytes`` bytes."""
        byte = self.buffer[self.pos]
        value = (byte & 0x7F).astype(np.uint64)
        self.pos += 1
        more = np.flatnonzero(byte & 0x80)
        shift = 7
        while more.size:
            if shift >= 7 * max_bytes:
                raise NotColumnar("a varint longer than its type allows")
            byte = self.buffer[self.pos[more]]
            value[more] |= (byte & 0x7F).astype(np.uint64) << np.uint64(shift)
            self.pos[more] += 1
            more = more[(byte & 0x80) != 0]
            shift += 7
        self._check()
        return value

    def avro_long(self) -> Any:
        """Avro ``long`` values (``int64``); nine bytes at most (a 63-bit zigzag value)."""
        raw = self.uvarint(9)
        return (raw >> np.uint64(1)).astype(np.int64) ^ -(raw & np.uint64(1)).astype(np.int64)

    def avro_int(self) -> Any:
        """Avro ``int`` values (``int32``)."""
        values = self.avro_long()
        if len(values) and (values.min() < _INT_MIN or values.max() > _INT_MAX):
            raise NotColumnar("an int outside 32 bits")
        return values.astype(np.int32)

    def _lengths(self) -> Any:
        lengths = self.avro_long()
        if len(lengths) and lengths.min() < 0:
            raise NotColumnar("a negative length")
        return lengths

    def avro_bytes(self, kind: pa.DataType) -> pa.Array:
        """Avro ``bytes`` or ``string`` values as an Arrow array of ``kind`` (``binary`` or
        ``string``, checked to be UTF-8)."""
        lengths = self._lengths()
        starts = self.pos.copy()
        self.pos += lengths
        self._check()
        return self._gather(starts, lengths, kind)

    def skip_bytes(self) -> None:
        """Past Avro ``bytes`` values without reading them (secrets nobody asked for)."""
        self.pos += self._lengths()
        self._check()

    def fixed(self, size: int) -> pa.Array:
        """Avro ``fixed`` values of ``size`` bytes."""
        starts = self.pos.copy()
        self.pos += size
        self._check()
        data = np.lib.stride_tricks.sliding_window_view(self.buffer, size)[starts]
        return pa.Array.from_buffers(
            pa.binary(size), len(starts), [None, pa.py_buffer(np.ascontiguousarray(data))]
        )

    def optional_string(self) -> pa.Array:
        """An Avro ``["null", "string"]`` union."""
        branch = self.avro_long()
        if len(branch) and bool(((branch != 0) & (branch != 1)).any()):
            raise NotColumnar("a union branch outside the schema")
        present = np.flatnonzero(branch == 1)
        if not present.size:
            return pa.nulls(len(branch), pa.string())
        sub = self.take(present)
        lengths = np.zeros(len(branch), dtype=np.int64)
        lengths[present] = sub._lengths()
        starts = self.pos.copy()  # an absent string is empty at its own position
        starts[present] = sub.pos
        self.pos[present] = sub.pos + lengths[present]
        self._check()
        # Nulls by a validity bitmap (no gather of the present strings into place).
        validity = np.packbits(branch == 1, bitorder="little")
        return self._gather(starts, lengths, pa.string(), pa.py_buffer(validity))

    def _gather(
        self, starts: Any, lengths: Any, kind: pa.DataType, validity: pa.Buffer | None = None
    ) -> pa.Array:
        total = int(lengths.sum())
        if total > _INT_MAX:
            raise NotColumnar("more string bytes than one Arrow array holds")
        offsets = np.zeros(len(lengths) + 1, dtype=np.int32)
        np.cumsum(lengths, out=offsets[1:])
        # int32 indices: half the memory of int64, and small enough to stay off fresh pages.
        shift = (starts - offsets[:-1]).astype(np.int32)
        gather = np.repeat(shift, lengths) + np.arange(total, dtype=np.int32)
        data = self.buffer[gather]
        array = pa.Array.from_buffers(
            kind,
            len(lengths),
            [validity, pa.py_buffer(offsets), pa.py_buffer(data)],
        )
        if kind == pa.string() and total and int(data.max()) >= 0x80:  # ASCII is UTF-8
            try:
                array.validate(full=True)
            except pa.ArrowInvalid:
                raise NotColumnar("text that is not UTF-8") from None
        return array
