"""Base-128 varints, the one definition every encoder in aclog uses.

- :func:`uvarint`: an unsigned varint, 7 bits a byte, low bits first (aclog's record frames,
  Kafka's flexible-version lengths).
- :func:`zigzag`: a signed 64-bit integer zigzag-mapped, then as :func:`uvarint` (Avro's
  ``long``, Kafka's record-batch varints).

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
