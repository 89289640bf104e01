"""Kafka wire primitives for the responses aclog encodes itself (see
:class:`aclog.wire.protocol.EncodedResponse`): strings, arrays and tagged-field markers, in
both the classic and the flexible (compact, KIP-482) forms.

Only what those responses need: non-nullable and nullable strings, array lengths, int8 pairs and
an empty tagged-field section. Pure functions; thread-safe.
"""

from __future__ import annotations

import struct

from aclog.varint import uvarint

INT8 = struct.Struct(">b")
INT8_PAIR = struct.Struct(">bb")
INT16 = struct.Struct(">h")
INT32 = struct.Struct(">i")
INT32_INT16 = struct.Struct(">ih")

NO_TAGS = b"\x00"
"""An empty tagged-field section (flexible versions end every struct with one)."""


def string(text: str, compact: bool) -> bytes:
    """A non-null string: length (compact: varint of length + 1; else int16) and UTF-8 bytes."""
    data = text.encode()
    return (uvarint(len(data) + 1) if compact else INT16.pack(len(data))) + data


def nullable_string(text: str | None, compact: bool) -> bytes:
    """A nullable string: null is compact length 0, or int16 -1."""
    if text is None:
        return b"\x00" if compact else INT16.pack(-1)
    return string(text, compact)


def array_length(count: int, compact: bool) -> bytes:
    """An array's element count: compact varint of count + 1, else int32."""
    return uvarint(count + 1) if compact else INT32.pack(count)
