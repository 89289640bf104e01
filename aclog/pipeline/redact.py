"""A record value without its secret fields, cut out of the encoded bytes instead of decoded.

A value is its frame, then its fields in schema order. Every field of a record type with secrets
(SCRAM credentials) is an Avro ``int`` or ``long`` (one zigzag varint) or a ``string`` or
``bytes`` (a varint length, then that many bytes), so leaving a field out is leaving its bytes
out: :func:`redact` walks the fields and joins the bytes of those it keeps. It checks what the
codec would check (the value ends after its last field, an ``int`` fits 32 bits, a string is
UTF-8, a length is not negative) and returns ``None`` for anything else, or for a version other
than the current one, so that the caller decodes and re-encodes the value (and the codec raises
its exact error for a bad one). The result is then the value the re-encoding gives: the frame of
the current version and the kept fields.

Thread-safe (pure functions over cached plans). Cost: a short loop step per field, about 2 us
a value, where decoding and re-encoding it costs ten times that.
"""

from __future__ import annotations

from functools import cache

from aclog.records.render import SECRET_FIELDS
from aclog.records.schemas import CURRENT_VERSIONS, raw_schema
from aclog.records.types import RecordType
from aclog.varint import read_zigzag

_KINDS = {"int", "long", "string", "bytes"}
_RANGES = {"int": range(-(1 << 31), 1 << 31), "long": range(-(1 << 63), 1 << 63)}

Plan = tuple[tuple[str, bool], ...]
"""(field kind, keep) per field of the current version, in order."""


@cache
def plan(record_type: RecordType) -> Plan | None:
    """How to cut the current version of ``record_type``: ``None`` when a field has a type
    :func:`redact` does not walk (a union, a record, an array...)."""
    fields = raw_schema(record_type, CURRENT_VERSIONS[record_type])["fields"]
    kinds = [field["type"] if field["type"] in _KINDS else None for field in fields]
    if None in kinds:
        return None
    return tuple(
        (str(kind), field["name"] not in SECRET_FIELDS)
        for kind, field in zip(kinds, fields, strict=True)
    )


def redact(value: bytes, frame: bytes, fields: Plan) -> bytes | None:
    """``value`` (which starts with ``frame``, the current version's) without the fields
    ``fields`` does not keep; ``None`` when the bytes are not a valid value of that shape."""
    parts = [frame]
    pos = len(frame)
    try:
        for kind, keep in fields:
            start = pos
            number, pos = read_zigzag(value, pos)
            if kind in _RANGES:
                if number not in _RANGES[kind]:
                    return None
            else:
                if number < 0 or pos + number > len(value):
                    return None
                if kind == "string":
                    value[pos : pos + number].decode("utf-8")
                pos += number
            if keep:
                parts.append(value[start:pos])
    except (IndexError, ValueError):  # UnicodeDecodeError is a ValueError
        return None
    return b"".join(parts) if pos == len(value) else None
