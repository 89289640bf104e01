"""What a snapshot's Avro header says, and the integrity check that covers the whole file.

The header's metadata holds, as strings: ``aclog.format`` (``"2"``: ACLs in column chunks, see
:mod:`aclog.snapshot.acl_columns`; ``"1"``: one row per record, still read), ``aclog.last_offset``,
``aclog.epoch``, ``aclog.timestamp_ms``, ``aclog.record_counts`` and ``aclog.schema_versions``
(JSON objects keyed by record class name), ``aclog.data_bytes`` (the bytes after the header)
and ``aclog.crc32c``. The header is written before the records, so the three values known only
at the end (counts, data bytes, checksum) are fixed-width slots, patched in place once the
records are written; the counts are JSON padded with trailing spaces, which JSON allows.

``aclog.crc32c`` is the CRC-32C of every byte after the header, continued over the header
itself with the eight checksum characters read as ``0``. It therefore covers every byte of the
file but those eight, and a change to one of them changes the stored value (only the writer's
lower-case spelling is accepted), which no longer matches: a CRC detects every error burst of
up to 32 bits, so any single damaged byte.

Immutable values; thread-safe. Cost: a few dict lookups; the CRC runs at memory speed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import crc32c

from aclog.records.schemas import CURRENT_VERSIONS
from aclog.snapshot.errors import SnapshotCorruptError
from aclog.snapshot.schema import BY_NAME, MEMBERS
from aclog.varint import zigzag

FORMAT_VERSION = "2"
"""The format this build writes by default: ACLs in column chunks."""
ROWS_FORMAT = "1"
"""The format of one Avro row per record: older snapshots, and written on request."""
KEY_FORMAT = "aclog.format"
KEY_LAST_OFFSET = "aclog.last_offset"
KEY_EPOCH = "aclog.epoch"
KEY_TIMESTAMP = "aclog.timestamp_ms"
KEY_COUNTS = "aclog.record_counts"
KEY_VERSIONS = "aclog.schema_versions"
KEY_DATA_BYTES = "aclog.data_bytes"
KEY_CHECKSUM = "aclog.crc32c"

_DATA_BYTES_WIDTH = 20
_CHECKSUM_WIDTH = 8
_CHECKSUM_TEXT = re.compile(r"[0-9a-f]{8}")


def _counts_json(counts: Mapping[str, int]) -> str:
    return json.dumps(dict(counts), sort_keys=True, separators=(",", ":"))


_COUNTS_WIDTH = len(_counts_json({m.name: 10**19 - 1 for m in MEMBERS}))


@dataclass(frozen=True, slots=True)
class SnapshotInfo:
    """Where a snapshot came from and what it holds, as its header states (and the file proved).

    ``last_offset`` is the offset of the last record contained, ``epoch`` that record's batch
    epoch, ``timestamp_ms`` that batch's append time; ``record_counts`` and ``schema_versions``
    are keyed by record class name; ``size`` is the file size in bytes.
    """

    path: Path
    last_offset: int
    epoch: int
    timestamp_ms: int
    record_counts: Mapping[str, int]
    schema_versions: Mapping[str, int]
    size: int
    crc32c: int

    @property
    def record_count(self) -> int:
        """Records in the snapshot, all types together."""
        return sum(self.record_counts.values())

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of every field."""
        return {
            "path": str(self.path),
            "last_offset": self.last_offset,
            "epoch": self.epoch,
            "timestamp_ms": self.timestamp_ms,
            "record_counts": dict(self.record_counts),
            "schema_versions": dict(self.schema_versions),
            "size": self.size,
            "crc32c": f"{self.crc32c:08x}",
        }


def initial_metadata(
    last_offset: int,
    epoch: int,
    timestamp_ms: int,
    schema_versions: Mapping[str, int],
    rows: bool,
) -> dict[str, str]:
    """The header metadata a writer starts with (of format 1 if ``rows``, else of the current
    format); the slots hold placeholders of final width."""
    return {
        KEY_FORMAT: ROWS_FORMAT if rows else FORMAT_VERSION,
        KEY_LAST_OFFSET: str(last_offset),
        KEY_EPOCH: str(epoch),
        KEY_TIMESTAMP: str(timestamp_ms),
        KEY_VERSIONS: json.dumps(dict(schema_versions), sort_keys=True, separators=(",", ":")),
        KEY_COUNTS: " " * _COUNTS_WIDTH,
        KEY_DATA_BYTES: "0" * _DATA_BYTES_WIDTH,
        KEY_CHECKSUM: "0" * _CHECKSUM_WIDTH,
    }


def finish_header(
    header: bytes | bytearray, counts: Mapping[str, int], data_bytes: int, data_crc: int
) -> tuple[bytes, int]:
    """``header`` with its slots filled in, and the file's checksum."""
    patched = bytearray(header)
    _patch(patched, KEY_COUNTS, _counts_json(counts).ljust(_COUNTS_WIDTH))
    _patch(patched, KEY_DATA_BYTES, f"{data_bytes:0{_DATA_BYTES_WIDTH}d}")
    checksum = file_checksum(patched, data_crc)
    _patch(patched, KEY_CHECKSUM, f"{checksum:08x}")
    return bytes(patched), checksum


def file_checksum(header: bytes | bytearray, data_crc: int) -> int:
    """The CRC-32C of the data (``data_crc``) continued over ``header``, checksum slot as 0."""
    start = _slot(header, KEY_CHECKSUM, _CHECKSUM_WIDTH)
    crc = crc32c.crc32c(memoryview(header)[:start], data_crc)
    crc = crc32c.crc32c(b"0" * _CHECKSUM_WIDTH, crc)
    return crc32c.crc32c(memoryview(header)[start + _CHECKSUM_WIDTH :], crc)


def _patch(header: bytearray, key: str, value: str) -> None:
    raw = value.encode("ascii")
    start = _slot(header, key, len(raw))
    header[start : start + len(raw)] = raw


def _slot(header: bytes | bytearray, key: str, width: int) -> int:
    """Where the value of map entry ``key`` starts, given that it is ``width`` bytes long."""
    # An Avro map entry is: long key length, key bytes, long value length, value bytes.
    prefix = zigzag(len(key)) + key.encode("ascii") + zigzag(width)
    start = header.find(prefix)
    if start < 0 or header.find(prefix, start + 1) >= 0:
        raise ValueError(f"the header holds no single {key} entry of {width} bytes")
    return start + len(prefix)


def check_format(path: Path, metadata: Mapping[str, str]) -> str:
    """The format the header names; raises unless it is an aclog format this build reads."""
    found = metadata.get(KEY_FORMAT)
    if found is None:
        raise SnapshotCorruptError(path, f"the header has no {KEY_FORMAT}; not an aclog snapshot")
    if found not in (ROWS_FORMAT, FORMAT_VERSION):
        raise SnapshotCorruptError(
            path,
            f"unknown snapshot format {found!r} (this build reads {ROWS_FORMAT!r} and "
            f"{FORMAT_VERSION!r}); it was written by a newer aclog, so upgrade aclog to read it",
        )
    return found


def stored_integrity(path: Path, metadata: Mapping[str, str]) -> tuple[int, int]:
    """(data bytes, checksum) as the header states them."""
    data_bytes = _integer(path, metadata, KEY_DATA_BYTES)
    text = _required(path, metadata, KEY_CHECKSUM)
    # Exactly the writer's spelling: the checksum does not cover its own eight characters, so
    # a second spelling of the same number ("7C16..." for "7c16...") must not be accepted.
    if _CHECKSUM_TEXT.fullmatch(text) is None:
        raise SnapshotCorruptError(
            path, f"{KEY_CHECKSUM} is not 8 lower-case hexadecimal digits: {text!r}"
        )
    return data_bytes, int(text, 16)


def parse_info(path: Path, metadata: Mapping[str, str], size: int) -> SnapshotInfo:
    """The :class:`SnapshotInfo` a (checksum-verified) header describes."""
    versions = _json_ints(path, metadata, KEY_VERSIONS)
    for name, version in versions.items():
        member = BY_NAME.get(name)
        if member is None or version > CURRENT_VERSIONS[member.record_type]:
            what = f"record type {name}" if member is None else f"{name} version {version}"
            raise SnapshotCorruptError(
                path, f"it holds {what}, unknown to this build; upgrade aclog to read it"
            )
    counts = _json_ints(path, metadata, KEY_COUNTS)
    if set(counts) != set(versions):
        raise SnapshotCorruptError(
            path, f"{KEY_COUNTS} and {KEY_VERSIONS} name different record types"
        )
    return SnapshotInfo(
        path,
        _integer(path, metadata, KEY_LAST_OFFSET),
        _integer(path, metadata, KEY_EPOCH),
        _integer(path, metadata, KEY_TIMESTAMP),
        counts,
        versions,
        size,
        stored_integrity(path, metadata)[1],
    )


def _required(path: Path, metadata: Mapping[str, str], key: str) -> str:
    value = metadata.get(key)
    if value is None:
        raise SnapshotCorruptError(path, f"the header metadata has no {key}")
    return value


def _integer(path: Path, metadata: Mapping[str, str], key: str) -> int:
    text = _required(path, metadata, key)
    if not (text.isascii() and text.isdigit()):
        raise SnapshotCorruptError(path, f"{key} is not a non-negative integer: {text!r}")
    return int(text)


def _json_ints(path: Path, metadata: Mapping[str, str], key: str) -> dict[str, int]:
    text = _required(path, metadata, key)
    try:
        value = json.loads(text)
    except ValueError:
        value = None
    if not isinstance(value, dict) or not all(type(v) is int and v >= 0 for v in value.values()):
        raise SnapshotCorruptError(
            path, f"{key} is not a JSON object of non-negative integers: {text!r}"
        )
    return value
