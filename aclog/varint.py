"""Base-128 varints, the one definition every encoder in aclog uses.

- :func:`uvarint`: an unsigned varint, 7 bits a byte, low bits first (aclog's record frames,
  Kafka's flexible-version lengths).
- :func:`zigzag`: a signed 64-bit integer zigzag-mapped, then as :func:`uvarint` (Avro's
  ``long``, Kafka's record-batch varints).
- :func:`read_uvarint`: the reverse of :func:`uvarint`, at most 5 bytes as Kafka reads them.
- :func:`read_zigzag`: the reverse of :func:`zigzag`, at most 10 bytes (an Avro ``long``).
- :func:`skip_tagged_fields`: past a flexible-version tagged-field section, whose tags are
  all unknown to aclog (KRaft record bodies, Kafka request headers).

Pure functions; thread-safe. Cost: one loop step per 7 bits.
"""

from __future__ import annotations


def uvarint(value: int) -> bytes:
    """The unsigned varint of a non-negative ``value``."""
    if value < 0x80:
        return bytes((value,))
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def zigzag(value: int) -> bytes:
    """The zigzag varint of a signed 64-bit ``value``: 0, -1, 1, -2 ... encode as 0, 1, 2, 3."""
    return uvarint((value << 1) ^ (value >> 63))


def read_uvarint(data: bytes, pos: int) -> tuple[int, int]:
    """The unsigned varint at ``pos`` and the position after it, as Kafka's
    ``ByteUtils.readUnsignedVarint`` reads one: ``IndexError`` if ``data`` ends inside it,
    ``ValueError`` if it runs over 5 bytes (Kafka's limit for a 32-bit value)."""
    return _read_varint(data, pos, 28)


def read_zigzag(data: bytes, pos: int) -> tuple[int, int]:
    """The zigzag varint at ``pos`` and the position after it: ``IndexError`` if ``data``
    ends inside it, ``ValueError`` if it runs over 10 bytes (a 64-bit value's limit)."""
    value, pos = _read_varint(data, pos, 63)
    return (value >> 1) ^ -(value & 1), pos


def _read_varint(data: bytes, pos: int, last_shift: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, pos
        shift += 7
        if shift > last_shift:
            raise ValueError("varint too long")


def skip_tagged_fields(data: bytes, pos: int) -> int:
    """The position after the tagged-field section at ``pos``; ``IndexError`` if it is cut
    short, ``ValueError`` if a varint in it is too long.

    Every tag is skipped: as in Kafka, a tag the reader does not know is ignored, and none of
    aclog's readers knows one (no field it decodes is tagged).
    """
    count, pos = read_uvarint(data, pos)
    for _ in range(count):
        _, pos = read_uvarint(data, pos)
        size, pos = read_uvarint(data, pos)
        pos += size
        if pos > len(data):
            raise IndexError("tagged field runs past the end")
    return pos
